//! `tissvm resume SNAPSHOT`: loads a snapshot (checked, its bytecode
//! verified), insists on `--plan` if given, and continues the run exactly
//! where it stopped (`session.rs`).

use std::path::PathBuf;

use clap::Args;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Status, Suspension};
use tiss_vm::session::answers::{self, Reply};
use tiss_vm::session::snapshot;

use super::options::{OutputFormat, RunOptions};
use super::session::{self, Start};
use super::{Output, status};

#[derive(Args)]
pub struct ResumeArgs {
    /// The snapshot a suspended run wrote (`.tiss/<task>-<n>.snap` by default).
    #[arg(value_name = "SNAPSHOT")]
    pub snapshot: PathBuf,

    /// Insist on this plan (`.tbc`, or `.tiss` compiled in memory): the
    /// snapshot is refused unless its bytecode has the same content hash.
    #[arg(long, value_name = "FILE.tbc")]
    pub plan: Option<PathBuf>,

    /// The answer to the interaction the run waits for: `continue` (PAUSE),
    /// `approve` or `reject` (REQUEST_REVIEW), or an option number from 1 (CHOOSE).
    #[arg(long, value_name = "ANSWER")]
    pub answer: Option<String>,

    /// A comment with the answer (a REQUEST_REVIEW ... INTO r keeps it as `r.COMMENT`).
    #[arg(long, value_name = "TEXT", requires = "answer")]
    pub comment: Option<String>,

    #[command(flatten)]
    pub options: RunOptions,
}

pub fn resume(out: &mut Output, args: &ResumeArgs) -> u8 {
    let name = args.snapshot.display().to_string();
    let bytes = match std::fs::read(&args.snapshot) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("tissvm: cannot read the snapshot `{name}`: {}", super::io_message(&e));
            return status::INVALID;
        }
    };
    let snap = match snapshot::read_snapshot(&bytes) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tissvm: {name}: {e}");
            return status::INVALID;
        }
    };
    if let Some(plan_path) = &args.plan {
        let plan = match super::load_plan(out, plan_path) {
            Ok(p) => p,
            Err(code) => return code,
        };
        let hash = plan.hash();
        if hash != snap.content_hash {
            eprintln!(
                "tissvm: the snapshot `{name}` belongs to other bytecode: it was written by a run of bytecode {}, \
                 and `{}` is bytecode {}; refusing to resume it with another plan",
                snap.content_hash,
                plan_path.display(),
                hash
            );
            return status::INVALID;
        }
    }
    let workdir = match &args.options.workdir {
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
                        eprintln!(
                            "tissvm: {e}; continue with `--answer {}`",
                            answers::expected_answers(question)
                        );
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
        Err(e) => {
            eprintln!("tissvm: {name}: {e}");
            return status::INVALID;
        }
    };
    if args.options.output_format == OutputFormat::Text {
        let line = waiting.as_ref().map_or_else(|| program.line(snap.machine.pc), |(_, line)| *line);
        eprintln!("tissvm: resuming `{}` at line {line} from {name}", program.string(program.module.task));
    }
    let start = Start {
        program,
        machine: snap.machine,
        bytecode: Some(snap.bytecode),
        workdir,
        first,
        resumed_from: Some(args.snapshot.clone()),
    };
    session::execute(start, &args.options)
}
