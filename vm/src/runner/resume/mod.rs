//! `tissvm resume SNAPSHOT`: loads a snapshot (checked, its bytecode
//! verified), insists on `--plan` if given, and continues the run exactly
//! where it stopped (`execute/`), with the run's options where none is
//! given again. Guards on resume (book: cli/tissvm.md): a snapshot is resumed once —
//! `Mark` records in its file that it is, and what continued it — and by
//! one process at a time (`ResumeLock`, held until this one exits, however
//! it exits); a `--budget`, `--max-procs` or `--max-memory` only lowers a
//! cap unless `--raise-budget`.
//!
//! What the snapshot claims is followed only if this user's key signed it
//! (book: reference/snapshots.md): its workspace (`crate::session::workspace_claim`: otherwise
//! `--workdir` is needed, and a relative path or a system directory is
//! refused either way) and its remembered options (otherwise a fresh run's,
//! and stderr names those not followed). The workspace used is printed
//! before anything runs.
//!
//! `claims.rs` decides what of the snapshot is followed; `refusals.rs` says
//! why a snapshot is not resumed.

pub(crate) mod claims;
pub(crate) mod refusals;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::host::Question;
use crate::machine::program::Program;
use crate::machine::{Status, Suspension};
use crate::provider::settings::Origin;
use crate::runner::execute::{Resumed, Start, execute};
use crate::runner::invalid::Invalid;
use crate::runner::options::{HostOptions, OutputFormat, ReportOptions, SnapshotOptions};
use crate::runner::plan::{Diagnostics, load_plan};
use crate::runner::status;
use crate::session::answers::Reply;
use crate::session::resume_command;
use crate::session::resume_lock::{LockError, ResumeLock};
use crate::session::snapshot::{self, AnswersPosition, RememberedOptions, Snapshot};
use crate::session::workspace_claim::{self, Basis};
use tiss_support::io_message::io_message;

use crate::session::snapshot_key::user_key;
use claims::{keep_limits_down, kept_options, signed_by_user, weakened};
use refusals::{being_resumed, not_a_snapshot, refused_workspace, resumed_before};

/// What `resume` continues, and how.
pub struct ResumeOptions {
    /// The snapshot a suspended run wrote.
    pub snapshot: PathBuf,
    /// Insist on this plan: the snapshot is refused unless its bytecode has
    /// the same content hash.
    pub plan: Option<PathBuf>,
    /// The answer to the interaction the run waits for, as `--answer` takes it.
    pub answer: Option<String>,
    /// A comment with the answer.
    pub comment: Option<String>,
    /// Resume a snapshot resumed before, or whose file cannot record that it is.
    pub force: bool,
    /// Let a budget, a limit or the sandbox profile given again loosen the run's.
    pub raise_budget: bool,
    pub host: HostOptions,
    pub report: ReportOptions,
    pub snapshot_options: SnapshotOptions,
    /// The arguments this process was given, after the program's name: the
    /// command printed to resume with `--workdir` repeats them.
    pub arguments: Vec<OsString>,
}

/// Continues the run in the snapshot; the exit status.
pub fn resume(out: &mut Diagnostics, args: &ResumeOptions) -> u8 {
    let format = &args.report;
    let name = args.snapshot.display().to_string();
    let (lock, bytes, snap) = match read(args, &name) {
        Ok(read) => read,
        Err(Unread::Invalid(invalid)) => return invalid.report(format),
        Err(Unread::Planted(why)) => {
            // As a link planted where the run's log or journal goes.
            eprintln!("tissvm: security_violation: {why}");
            return status::SECURITY;
        }
    };
    if let Some(plan_path) = &args.plan {
        let plan = match load_plan(out, plan_path) {
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
        args.host.allow_system_workdir,
    ) {
        Ok(chosen) => chosen,
        Err(refusal) => {
            let error = refused_workspace(&name, &snap.workspace, &refusal, home.as_deref(), &args.arguments);
            return Invalid::told(&name, error).report(format);
        }
    };
    // Given again, the workspace goes into every command printed to go on.
    let again = (basis == Basis::Given).then_some(workdir.as_path());
    let waiting = match &snap.machine.status {
        Status::Suspended(Suspension::Interaction { question, line }) => Some((question.clone(), *line)),
        _ => None,
    };
    let first = match first_answer(args, waiting.as_ref(), again, &name) {
        Ok(first) => first,
        Err(code) => return code,
    };
    let program = match Program::new(snap.module) {
        Ok(p) => p,
        Err(e) => return Invalid::told(&name, format!("{name}: {e}")).report(format),
    };
    let (claimed, remembered) = match followed(args, &snap.options, signed.is_ok()) {
        Ok(options) => options,
        Err(error) => return Invalid::told(&name, error).report(format),
    };
    eprintln!("tissvm: workspace: {} ({basis})", workdir.display());
    let line = waiting.as_ref().map_or_else(|| program.line(snap.machine.pc), |(_, line)| *line);
    let task = program.string(program.module.task);
    let at = format!("`{task}` at line {line} from {name}");
    tell_options(args, (&snap.options, &claimed), snap.answers.as_ref(), signed.is_ok(), again, &at);
    let plan = crate::runner::plan::shown_name(args.plan.as_deref(), &program.module.source, &name);
    let start = Start {
        plan,
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
    execute(start, &args.host, &args.report, remembered)
}

/// Takes the snapshot's lock and reads it: refused if another process is
/// resuming it, if it cannot be read, or if it was resumed before (unless
/// `--force`).
fn read(args: &ResumeOptions, name: &str) -> Result<(Option<ResumeLock>, Vec<u8>, Snapshot), Unread> {
    // Taken before the snapshot is read, held until this process exits: two
    // resumes of one snapshot never both run, `--force` or not.
    let lock = match ResumeLock::take(&args.snapshot) {
        Ok(lock) => Some(lock),
        Err(LockError::Held { path, pid }) => {
            return Err(Invalid::told(name, being_resumed(name, &path, pid)).into());
        }
        Err(LockError::Planted(why)) => return Err(Unread::Planted(why)),
        // Not a regular file in a writable directory: `Mark` refuses it, or
        // with --force resumes it unrecorded (and so unlocked).
        Err(LockError::Unavailable(_)) => None,
    };
    let bytes = snapshot::read(&args.snapshot)
        .map_err(|e| Invalid::told(name, format!("cannot read the snapshot `{name}`: {}", io_message(&e))))?;
    let snap =
        snapshot::read_snapshot(&bytes).map_err(|e| Invalid::told(name, not_a_snapshot(name, &bytes, e)))?;
    if let (Some(continuation), false) = (&snap.resumed, args.force) {
        return Err(Invalid::told(name, resumed_before(name, continuation)).into());
    }
    Ok((lock, bytes, snap))
}

/// Why a snapshot was not read: it is invalid or busy (exit 2, with its
/// report), or something not tissvm's sits at its lock's name (exit 5).
enum Unread {
    Invalid(Invalid),
    Planted(String),
}

impl From<Invalid> for Unread {
    fn from(invalid: Invalid) -> Unread {
        Unread::Invalid(invalid)
    }
}

/// `--answer` (with `--comment`), checked against the interaction the run
/// waits for (`waiting`); an error has been told and is the exit status.
fn first_answer(
    args: &ResumeOptions,
    waiting: Option<&(Question, u32)>,
    again: Option<&Path>,
    name: &str,
) -> Result<Option<Reply>, u8> {
    let Some(text) = &args.answer else { return Ok(None) };
    let reply = Reply::from_flag(text, args.comment.clone()).map_err(|e| {
        eprintln!("tissvm: {e}");
        status::INVALID
    })?;
    let Some((question, line)) = waiting else {
        eprintln!(
            "tissvm: --answer: the run in `{name}` is not waiting for an answer (it was interrupted); \
             resume it without --answer"
        );
        return Err(status::INVALID);
    };
    if let Err(e) = reply.answer(question, *line) {
        let commands = resume_command::commands(&args.snapshot, again, Some(question));
        eprintln!("tissvm: {e}; continue with one of:\n  {}", commands.join("\n  "));
        return Err(status::INVALID);
    }
    // It answers that interaction only: a RUN approval that a policy given
    // now no longer asks for must not pass its answer on to a later question.
    Ok(Some(Reply { line: Some(*line), ..reply }))
}

/// The options given now over those the run had (`run`): what the
/// snapshot claims, and what the run goes by — the claim if the snapshot is
/// this user's (`signed`), a sandbox or limit given again only tightening
/// it unless `--raise-budget`; else a fresh run's options.
fn followed(
    args: &ResumeOptions,
    run: &RememberedOptions,
    signed: bool,
) -> Result<(RememberedOptions, RememberedOptions), String> {
    let snapshot_dir = args.snapshot_options.snapshot_dir.as_deref();
    let over = |base, origin| args.host.over(snapshot_dir, base, origin);
    let claimed = over(run.clone(), Origin::Snapshot)?;
    // The options a snapshot remembers are followed only if it is this user's.
    if !signed {
        return Ok((claimed, over(RememberedOptions::default(), Origin::Default)?));
    }
    let mut remembered = claimed.clone();
    if !args.raise_budget {
        if let Some(error) = weakened(&run.sandbox_profile, &remembered.sandbox_profile, &args.host) {
            return Err(error);
        }
        for note in keep_limits_down(&run.limits, &mut remembered.limits) {
            eprintln!("tissvm: {note}");
        }
    }
    Ok((claimed, remembered))
}

/// Tells on stderr, before anything runs, what the run goes on with of the
/// options it had (`run`, and what the snapshot claims now: `claimed`) or,
/// not signed by this user, which ones it does not follow; where it
/// resumes (`at`); and the answers file the run used, if not given again.
fn tell_options(
    args: &ResumeOptions,
    (run, claimed): (&RememberedOptions, &RememberedOptions),
    used: Option<&AnswersPosition>,
    signed: bool,
    again: Option<&Path>,
    at: &str,
) {
    let kept = kept_options(run, claimed);
    if !signed && !kept.is_empty() {
        eprintln!(
            "tissvm: not following the options the snapshot remembers, since your key did not sign it: {}; give \
             them again to use them",
            kept.join(" ")
        );
    }
    if args.report.output_format == OutputFormat::Text {
        eprintln!("tissvm: resuming {at}");
        if signed && !kept.is_empty() {
            eprintln!("tissvm: with the run's {}", kept.join(" "));
        }
    }
    // Answers are given per invocation: a run's answers file is not read
    // again unless named, but never dropped without a word.
    if let (None, Some(used)) = (&args.host.answers, used) {
        eprintln!(
            "tissvm: note: the run answered from `{}`, whose entry {} is next; it is not used without \
             --answers; to go on with it:\n  {}",
            used.file.display(),
            used.next + 1,
            resume_command::with_answers_file(&args.snapshot, again, &used.file)
        );
    }
}
