//! `tissvm resume SNAPSHOT`: loads a snapshot (checked, its bytecode
//! verified), insists on `--plan` if given, and continues the run exactly
//! where it stopped (`session.rs`), with the run's options where none is
//! given again. Guards on resume (SPEC §9): a snapshot is resumed once —
//! [`Mark`] records in its file that it is, and what continued it — and by
//! one process at a time (`ResumeLock`, held until this one exits, however
//! it exits); a `--budget`, `--max-procs` or `--max-memory` only lowers a
//! cap unless `--raise-budget`.
//!
//! What the snapshot claims is followed only if this user's key signed it
//! (SPEC §6): its workspace (`session::workspace_claim`: otherwise
//! `--workdir` is needed, and a relative path or a system directory is
//! refused either way) and its remembered options (otherwise a fresh run's,
//! and stderr names those not followed). The workspace used is printed
//! before anything runs.

use std::path::{Path, PathBuf};

use clap::Args;
use tiss_host::sandbox::{Limits, Profile};
use tiss_support::shell::quote::shell_word;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Status, Suspension};
use tiss_vm::provider::settings::{Key, Origin};
use tiss_vm::session::answers::Reply;
use tiss_vm::session::resume_command;
use tiss_vm::session::resume_lock::{LockError, ResumeLock};
use tiss_vm::session::snapshot::{self, Continuation, RememberedOptions};
use tiss_vm::session::snapshot_key::{KeyFile, SnapshotKey};
use tiss_vm::session::workspace_claim::{self, Basis, Refusal};

use super::invalid::Invalid;
use super::options::{HostOptions, OutputFormat, ReportOptions, SnapshotOptions};
use super::session::{self, Resumed, Start};
use super::{Output, status};

#[derive(Args)]
pub struct ResumeArgs {
    /// The snapshot a suspended run wrote (`.tiss/<task>-<n>.snap` by default).
    #[arg(value_name = "SNAPSHOT")]
    pub snapshot: PathBuf,

    /// Insist on this plan (bytecode, or source compiled in memory): the
    /// snapshot is refused unless its bytecode has the same content hash.
    #[arg(long, value_name = "PLAN")]
    pub plan: Option<PathBuf>,

    /// The answer to the interaction the run waits for: `continue` (PAUSE),
    /// `approve` or `reject` (REQUEST_REVIEW), or an option number from 1 (CHOOSE).
    #[arg(long, value_name = "ANSWER")]
    pub answer: Option<String>,

    /// A comment with the answer (a REQUEST_REVIEW ... INTO r keeps it as `r.COMMENT`).
    #[arg(long, value_name = "TEXT", requires = "answer")]
    pub comment: Option<String>,

    /// Resume the snapshot even though it was resumed before (the effects
    /// after it run again), or though its file cannot record that it is;
    /// never while another resume of it runs.
    #[arg(long)]
    pub force: bool,

    /// Let `--budget`, `--max-procs` and `--max-memory` raise the cap in
    /// force, and `--sandbox-profile` loosen the run's; without it one given
    /// on resume only lowers a cap, and a weaker profile is refused.
    #[arg(long)]
    pub raise_budget: bool,

    #[command(flatten)]
    pub host: HostOptions,

    #[command(flatten)]
    pub report: ReportOptions,

    #[command(flatten)]
    pub snapshot_options: SnapshotOptions,
}

pub fn resume(out: &mut Output, args: &ResumeArgs) -> u8 {
    let format = &args.report;
    let name = args.snapshot.display().to_string();
    // Taken before the snapshot is read, held until this process exits: two
    // resumes of one snapshot never both run, `--force` or not.
    let lock = match ResumeLock::take(&args.snapshot) {
        Ok(lock) => Some(lock),
        Err(LockError::Held { path, pid }) => {
            return Invalid::told(&name, being_resumed(&name, &path, pid)).report(format);
        }
        // Not a regular file in a writable directory: `Mark` refuses it, or
        // with --force resumes it unrecorded (and so unlocked).
        Err(LockError::Unavailable(_)) => None,
    };
    let bytes = match snapshot::read(&args.snapshot) {
        Ok(b) => b,
        Err(e) => {
            let error = format!("cannot read the snapshot `{name}`: {}", super::io_message(&e));
            return Invalid::told(&name, error).report(format);
        }
    };
    let snap = match snapshot::read_snapshot(&bytes) {
        Ok(s) => s,
        Err(e) => return Invalid::told(&name, format!("{name}: {e}")).report(format),
    };
    if let (Some(continuation), false) = (&snap.resumed, args.force) {
        return Invalid::told(&name, resumed_before(&name, continuation)).report(format);
    }
    if let Some(plan_path) = &args.plan {
        let plan = match super::load_plan(out, plan_path) {
            Ok(p) => p,
            Err(refused) => return refused.report(format),
        };
        let hash = plan.hash();
        if hash != snap.content_hash {
            let error = format!(
                "the snapshot `{name}` belongs to other bytecode: it was written by a run of bytecode {}, \
                 and `{}` is bytecode {}; refusing to resume it with another plan",
                snap.content_hash,
                plan_path.display(),
                hash
            );
            return Invalid::told(&name, error).report(format);
        }
    }
    let key = user_key();
    let signed = signed_by_user(&bytes, snap.signed, &key);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let (workdir, basis) = match workspace_claim::choose(
        args.host.workdir.as_deref(),
        &snap.workspace,
        signed.clone(),
        home.as_deref(),
    ) {
        Ok(chosen) => chosen,
        Err(refusal) => {
            let error = refused_workspace(&name, &snap.workspace, &refusal, home.as_deref());
            return Invalid::told(&name, error).report(format);
        }
    };
    // Given again, the workspace goes into every command printed to go on.
    let again = (basis == Basis::Given).then_some(workdir.as_path());
    let waiting = match &snap.machine.status {
        Status::Suspended(Suspension::Interaction { question, line }) => Some((question.clone(), *line)),
        _ => None,
    };
    let first = match &args.answer {
        None => None,
        Some(text) => {
            let reply = match Reply::from_flag(text, args.comment.clone()) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("tissvm: {e}");
                    return status::INVALID;
                }
            };
            let reply = match &waiting {
                Some((question, line)) => {
                    if let Err(e) = reply.answer(question, *line) {
                        let commands = resume_command::commands(&args.snapshot, again, Some(question));
                        eprintln!("tissvm: {e}; continue with one of:\n  {}", commands.join("\n  "));
                        return status::INVALID;
                    }
                    // It answers that interaction only: a RUN approval that a
                    // policy given now no longer asks for must not pass its
                    // answer on to a later question.
                    Reply { line: Some(*line), ..reply }
                }
                None => {
                    eprintln!(
                        "tissvm: --answer: the run in `{name}` is not waiting for an answer (it was interrupted); \
                         resume it without --answer"
                    );
                    return status::INVALID;
                }
            };
            Some(reply)
        }
    };
    let program = match Program::new(snap.module) {
        Ok(p) => p,
        Err(e) => return Invalid::told(&name, format!("{name}: {e}")).report(format),
    };
    let snapshot_dir = args.snapshot_options.snapshot_dir.as_deref();
    let over = |base, origin| args.host.over(snapshot_dir, base, origin);
    let claimed = match over(snap.options.clone(), Origin::Snapshot) {
        Ok(r) => r,
        Err(e) => return Invalid::told(&name, e).report(format),
    };
    // The options a snapshot remembers are followed only if it is this user's.
    let remembered = if signed.is_ok() {
        let mut claimed = claimed.clone();
        if !args.raise_budget {
            if let Some(error) = weakened(&snap.options.sandbox_profile, &claimed.sandbox_profile, &args.host)
            {
                return Invalid::told(&name, error).report(format);
            }
            for note in keep_limits_down(&snap.options.limits, &mut claimed.limits) {
                eprintln!("tissvm: {note}");
            }
        }
        claimed
    } else {
        match over(RememberedOptions::default(), Origin::Default) {
            Ok(r) => r,
            Err(e) => return Invalid::told(&name, e).report(format),
        }
    };
    eprintln!("tissvm: workspace: {} ({basis})", workdir.display());
    let kept = kept_options(&snap.options, &claimed);
    if signed.is_err() && !kept.is_empty() {
        eprintln!(
            "tissvm: not following the options the snapshot remembers, since your key did not sign it: {}; give \
             them again to use them",
            kept.join(" ")
        );
    }
    if format.output_format == OutputFormat::Text {
        let line = waiting.as_ref().map_or_else(|| program.line(snap.machine.pc), |(_, line)| *line);
        eprintln!("tissvm: resuming `{}` at line {line} from {name}", program.string(program.module.task));
        if signed.is_ok() && !kept.is_empty() {
            eprintln!("tissvm: with the run's {}", kept.join(" "));
        }
    }
    // Answers are given per invocation: a run's answers file is not read
    // again unless named, but never dropped without a word.
    if let (None, Some(used)) = (&args.host.answers, &snap.answers) {
        eprintln!(
            "tissvm: note: the run answered from `{}`, whose entry {} is next; it is not used without \
             --answers; to go on with it:\n  {}",
            used.file.display(),
            used.next + 1,
            resume_command::with_answers_file(&args.snapshot, again, &used.file)
        );
    }
    let start = Start {
        program,
        machine: snap.machine,
        bytecode: Some(snap.bytecode),
        workdir,
        first,
        resumed: Some(Resumed {
            path: args.snapshot.clone(),
            bytes,
            answers: snap.answers,
            force: args.force,
            raise_budget: args.raise_budget,
            lock,
            key: key.ok(),
        }),
        checkpoint: args.snapshot_options.checkpoint.clone(),
    };
    session::execute(start, &args.host, &args.report, remembered)
}

/// This user's snapshot key, to check a snapshot's signature against (not
/// made if there is none: then this user signed nothing); `Err` says why
/// there is none, as the reason a snapshot is not signed by it.
fn user_key() -> Result<SnapshotKey, String> {
    match KeyFile::locate().and_then(|file| file.load().map(|key| (file, key))) {
        Ok((_, Some(key))) => Ok(key),
        Ok((file, None)) => {
            Err(format!("you have no snapshot key yet: `{}` does not exist", file.path.display()))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Why a snapshot signed with another key is not this user's.
const OTHER_KEY: &str =
    "it is signed with another key: by another user, on another machine, or it was changed since";

/// Why a snapshot without a signature is not this user's.
const NO_SIGNATURE: &str = "it carries no signature: the tissvm that wrote it, or the last to mark it resumed, \
                            had no usable key or not the one that signed it";

/// Whether the snapshot file `bytes` (which carries a signature if
/// `signed`) is signed by this user's `key`; if not, why, in words.
fn signed_by_user(bytes: &[u8], signed: bool, key: &Result<SnapshotKey, String>) -> Result<(), String> {
    match key {
        Ok(key) if snapshot::signed_by(bytes, key) => Ok(()),
        Ok(_) if signed => Err(OTHER_KEY.into()),
        Ok(_) => Err(NO_SIGNATURE.into()),
        Err(why) => Err(why.clone()),
    }
}

/// Why the workspace cannot be used, and the command that resumes the
/// snapshot with `--workdir`: the one given, with the snapshot's own
/// workspace if that would do, else `DIR` to fill in.
fn refused_workspace(name: &str, claim: &Path, refusal: &Refusal, home: Option<&Path>) -> String {
    let mut text = format!("`{name}`: {refusal}");
    if matches!(
        refusal,
        Refusal::NotADirectory { basis: Basis::Given, .. } | Refusal::System { basis: Basis::Given, .. }
    ) {
        return text;
    }
    let usable = claim.is_absolute() && workspace_claim::choose(Some(claim), claim, Ok(()), home).is_ok();
    let dir = if usable { shell_word(&claim.display().to_string()) } else { "DIR".to_string() };
    let given: Vec<String> =
        std::env::args_os().skip(1).map(|arg| shell_word(&arg.to_string_lossy())).collect();
    text.push_str(&format!(":\n  tissvm {} --workdir {dir}", given.join(" ")));
    if !usable {
        text.push_str("\nwith DIR a directory of your own for the run's files");
    }
    text
}

/// The options the run had, other than a fresh run's defaults, that this
/// resume goes on with (none given again), as flags.
fn kept_options(run: &RememberedOptions, now: &RememberedOptions) -> Vec<String> {
    let fresh = RememberedOptions::default();
    let mut flags = Vec::new();
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| shell_word(&p.display().to_string()));
    if run.snapshot_dir != fresh.snapshot_dir && now.snapshot_dir == run.snapshot_dir {
        flags.extend(path(&run.snapshot_dir).map(|p| format!("--snapshot-dir {p}")));
    }
    if run.log_file != fresh.log_file && now.log_file == run.log_file {
        flags.extend(path(&run.log_file).map(|p| format!("--log-file {p}")));
    }
    for key in Key::ALL {
        let value = run.provider.text(key);
        if value != fresh.provider.text(key)
            && now.provider.text(key) == value
            && let Some(value) = value
        {
            flags.push(format!("--{} {}", key.flag(), shell_word(&value)));
        }
    }
    if run.sandbox_profile != fresh.sandbox_profile && now.sandbox_profile == run.sandbox_profile {
        flags.push(format!("--sandbox-profile {}", shell_word(&run.sandbox_profile)));
    }
    if run.policy != fresh.policy && now.policy == run.policy {
        flags.push(format!("policy from {}", run.policy.origin));
    }
    if run.limits.max_procs != fresh.limits.max_procs && now.limits.max_procs == run.limits.max_procs {
        flags.push(format!("--max-procs {}", run.limits.max_procs));
    }
    if run.limits.max_memory != fresh.limits.max_memory && now.limits.max_memory == run.limits.max_memory {
        flags.push(format!("--max-memory {}", run.limits.max_memory));
    }
    if let Some(max) = run.log_max_output.filter(|_| now.log_max_output == run.log_max_output) {
        flags.push(format!("--log-max-output {max}"));
    }
    if now.env_allow == run.env_allow {
        flags.extend(run.env_allow.iter().map(|name| format!("--env-allow {}", shell_word(name))));
    }
    flags
}

/// Why a sandbox profile given on resume (flag or `TISS_SANDBOX_PROFILE`)
/// is refused: it would confine the run less than it was.
fn weakened(run: &str, now: &str, host: &HostOptions) -> Option<String> {
    let strength = |name: &str| Profile::ALL.iter().position(|p| p.name() == name);
    if strength(now)? >= strength(run)? {
        return None;
    }
    let given = if host.sandbox_profile.is_some() {
        format!("--sandbox-profile {now}")
    } else {
        format!("TISS_SANDBOX_PROFILE={now}")
    };
    Some(format!(
        "{given} would confine the resumed run less than the run's `{run}` sandbox; resume without it to keep \
         `{run}`, or add --raise-budget to loosen it"
    ))
}

/// Like a budget, a sandbox limit given on resume only lowers the run's
/// (`--raise-budget` lets it rise): `now` keeps `run`'s where it would
/// raise it, and what is returned says so, per limit.
fn keep_limits_down(run: &Limits, now: &mut Limits) -> Vec<String> {
    let mut notes = Vec::new();
    if now.max_procs > run.max_procs {
        notes.push(format!(
            "--max-procs {} does not raise the run's limit ({}); add --raise-budget to raise it",
            now.max_procs, run.max_procs
        ));
        now.max_procs = run.max_procs;
    }
    if now.max_memory > run.max_memory {
        notes.push(format!(
            "--max-memory {} does not raise the run's limit ({} bytes); add --raise-budget to raise it",
            now.max_memory, run.max_memory
        ));
        now.max_memory = run.max_memory;
    }
    notes
}

/// Why a snapshot that another process is resuming is refused, and what to
/// do instead.
fn being_resumed(name: &str, lock: &Path, pid: Option<u32>) -> String {
    let (holder, stop) = match pid {
        Some(pid) => (format!("another tissvm (pid {pid})"), format!("; `kill -TERM {pid}` suspends it")),
        None => ("another tissvm".to_string(), String::new()),
    };
    format!(
        "`{name}` is being resumed right now by {holder}, which holds its lock `{}`; two resumes of one \
         snapshot would both run the effects after it, so only one runs at a time, --force or not. Wait for it \
         to end{stop}",
        lock.display()
    )
}

/// Why a snapshot resumed before is refused, and what to do instead.
fn resumed_before(name: &str, continuation: &Continuation) -> String {
    let advice = match continuation {
        Continuation::Snapshot(next) => {
            format!("Continue from there: `tissvm resume {}`", shell_word(&next.display().to_string()))
        }
        Continuation::Ended(_) => "There is nothing left to continue".to_string(),
        Continuation::Started => {
            "If it is not running, the effects after the snapshot may have happened in part: check the \
             workspace"
                .to_string()
        }
    };
    format!(
        "`{name}` was resumed before, and that run {continuation}; resuming it again would run the effects \
         after it twice. {advice}; or pass --force to resume it anyway"
    )
}

/// Why a snapshot was not marked resumed.
enum Unmarked {
    /// Its file cannot be rewritten (why): `--force` resumes it unrecorded.
    Cannot(String),
    /// It changed since it was read (a program that does not take the
    /// lock wrote it): refused, `--force` or not.
    Changed,
}

/// A snapshot's record that it is resumed (SPEC §9): its file rewritten
/// atomically with [`Continuation::Started`] before the resumed run's first
/// instruction, then with what continued it — or as it was, if nothing ran.
pub struct Mark {
    /// The snapshot's file, symbolic links resolved.
    file: PathBuf,
    /// As the user named it, for messages.
    name: String,
    /// The file's bytes before the mark.
    original: Vec<u8>,
    /// This user's key, which keeps the marked file signed if it was.
    key: Option<SnapshotKey>,
    /// The snapshot's lock, held as long as the mark may still change.
    _lock: Option<ResumeLock>,
}

impl Mark {
    /// Marks `resumed`'s snapshot, taking over its lock. A file that cannot
    /// be rewritten (not a regular file, read-only, or changed since it was
    /// read) is refused, unless `--force`: then nothing records this resume
    /// (`Ok(None)`).
    pub fn start(resumed: &mut Resumed) -> Result<Option<Mark>, Invalid> {
        let name = resumed.path.display().to_string();
        match Mark::write_started(&resumed.path, &resumed.bytes, resumed.key.as_ref()) {
            Ok(file) => Ok(Some(Mark {
                file,
                name,
                original: resumed.bytes.clone(),
                key: resumed.key.clone(),
                _lock: resumed.lock.take(),
            })),
            Err(Unmarked::Changed) => Err(Invalid::told(
                &name,
                format!(
                    "`{name}` changed while this tissvm was starting (another program wrote it); nothing ran. \
                     See what it holds now with `tissvm resume {}`",
                    shell_word(&name)
                ),
            )),
            Err(Unmarked::Cannot(why)) if resumed.force => {
                eprintln!(
                    "tissvm: warning: nothing records that `{name}` was resumed, nor stops another resume of it \
                     meanwhile ({why}); resuming it again would run the effects after it twice"
                );
                Ok(None)
            }
            Err(Unmarked::Cannot(why)) => Err(Invalid::told(
                &name,
                format!(
                    "cannot record in `{name}` that it is resumed ({why}); without that record it could be \
                     resumed again and the effects after it run twice. Resume a copy that is a regular file in \
                     a writable directory, or pass --force to resume it without the record"
                ),
            )),
        }
    }

    /// Checks that the file still holds what was read and marks it. Other
    /// resumes of it are refused while this one holds its lock, so only a
    /// program that does not take the lock can have changed it.
    fn write_started(path: &Path, read: &[u8], key: Option<&SnapshotKey>) -> Result<PathBuf, Unmarked> {
        let cannot = Unmarked::Cannot;
        let file =
            std::fs::canonicalize(path).map_err(|e| cannot(format!("it has no path to rewrite: {e}")))?;
        if !std::fs::metadata(&file).is_ok_and(|m| m.is_file()) {
            return Err(cannot("it is not a regular file".into()));
        }
        if std::fs::read(&file).ok().as_deref() != Some(read) {
            return Err(Unmarked::Changed);
        }
        let marked = snapshot::with_continuation(read, Some(&Continuation::Started), key)
            .map_err(|e| cannot(e.to_string()))?;
        snapshot::write_snapshot(&file, &marked).map_err(|e| cannot(super::io_message(&e)))?;
        Ok(file)
    }

    /// Records what continued the snapshot.
    pub fn finish(&self, continuation: &Continuation) {
        let written = snapshot::with_continuation(&self.original, Some(continuation), self.key.as_ref())
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                snapshot::write_snapshot(&self.file, &bytes).map_err(|e| super::io_message(&e))
            });
        if let Err(e) = written {
            eprintln!("tissvm: warning: cannot record in `{}` how its resumed run went on: {e}", self.name);
        }
    }

    /// Leaves the snapshot as it was: nothing ran, so it still holds.
    pub fn clear(&self) {
        if let Err(e) = snapshot::write_snapshot(&self.file, &self.original) {
            eprintln!(
                "tissvm: warning: cannot clear the resumed mark of `{}`: {}",
                self.name,
                super::io_message(&e)
            );
        }
    }
}
