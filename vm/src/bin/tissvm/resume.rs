//! `tissvm resume SNAPSHOT`: loads a snapshot (checked, its bytecode
//! verified), insists on `--plan` if given, and continues the run exactly
//! where it stopped (`session.rs`).

use std::path::PathBuf;

use clap::Args;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Status, Suspension};
use tiss_vm::session::answers::Reply;
use tiss_vm::session::resume_command;
use tiss_vm::session::snapshot;

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

    #[command(flatten)]
    pub host: HostOptions,

    #[command(flatten)]
    pub report: ReportOptions,

    #[command(flatten)]
    pub snapshot_options: SnapshotOptions,
}

pub fn resume(out: &mut Output, args: &ResumeArgs) -> u8 {
    let format = args.report.output_format;
    let name = args.snapshot.display().to_string();
    let bytes = match std::fs::read(&args.snapshot) {
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
    if let Some(plan_path) = &args.plan {
        let plan = match super::load_plan(out, plan_path) {
            Ok(p) => p,
            Err(refused) => return refused.report(format),
        };
        if plan.hash != snap.content_hash {
            let error = format!(
                "the snapshot `{name}` belongs to other bytecode: it was written by a run of bytecode {}, \
                 and `{}` is bytecode {}; refusing to resume it with another plan",
                snap.content_hash,
                plan_path.display(),
                plan.hash
            );
            return Invalid::told(&name, error).report(format);
        }
    }
    let workdir = match &args.host.workdir {
        Some(dir) => dir.clone(),
        None if snap.workspace.is_dir() => snap.workspace.clone(),
        None => {
            eprintln!(
                "tissvm: the snapshot's workspace `{}` is not a directory here; pass --workdir DIR",
                snap.workspace.display()
            );
            return status::INVALID;
        }
    };
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
            match &waiting {
                Some((question, line)) => {
                    if let Err(e) = reply.answer(question, *line) {
                        let commands = resume_command::commands(&args.snapshot, Some(question));
                        eprintln!("tissvm: {e}; continue with one of:\n  {}", commands.join("\n  "));
                        return status::INVALID;
                    }
                }
                None => {
                    eprintln!(
                        "tissvm: --answer: the run in `{name}` is not waiting for an answer (it was interrupted); \
                         resume it without --answer"
                    );
                    return status::INVALID;
                }
            }
            Some(reply)
        }
    };
    let program = match Program::new(snap.module) {
        Ok(p) => p,
        Err(e) => return Invalid::told(&name, format!("{name}: {e}")).report(format),
    };
    if format == OutputFormat::Text {
        let line = waiting.as_ref().map_or_else(|| program.line(snap.machine.pc), |(_, line)| *line);
        eprintln!("tissvm: resuming `{}` at line {line} from {name}", program.string(program.module.task));
    }
    // Answers are given per invocation: a run's answers file is not read
    // again unless named, but never dropped without a word.
    if let (None, Some(used)) = (&args.host.answers, &snap.answers) {
        eprintln!(
            "tissvm: note: the run answered from `{}`, whose entry {} is next; it is not used without \
             --answers; to go on with it:\n  {}",
            used.file.display(),
            used.next + 1,
            resume_command::with_answers_file(&args.snapshot, &used.file)
        );
    }
    let start = Start {
        program,
        machine: snap.machine,
        bytecode: Some(snap.bytecode),
        workdir,
        first,
        resumed: Some(Resumed { path: args.snapshot.clone(), answers: snap.answers }),
    };
    session::execute(start, &args.host, &args.report, &args.snapshot_options)
}
