//! One run of a plan on the real host, from start to finish, fresh (`run`)
//! or resumed (`resume/`): the host set up from the run options
//! (`host.rs`), the snapshot resumed marked so (`mark.rs`), the dispatch
//! loop with its Ctrl-C stop and checkpoints (`dispatch.rs`,
//! `checkpoint.rs`), and on suspension the snapshot and the commands that
//! continue it (`suspend.rs`); then the report.

mod checkpoint;
mod dispatch;
pub mod host;
pub mod mark;
pub mod project_file;
mod restart;
pub mod suspend;
mod unfinished;

use std::path::PathBuf;

use crate::host::Host;
use crate::machine::program::Program;
use crate::machine::{Machine, Outcome};
use crate::report::effects::Effects;
use crate::report::style::{Tone, escape_controls};
use crate::report::{RunReport, RunStatus, failure_text};
use crate::runner::options::{HostOptions, OutputFormat, ReportOptions};
use crate::runner::os_host::{OsHost, Progress};
use crate::runner::{color, status};
use crate::session::answers::Reply;
use crate::session::interrupt;
use crate::session::resume_command;
use crate::session::snapshot::{Continuation, RememberedOptions};
use tiss_host::sandbox::Isolation;
use tisslang::cost::Dim;

use checkpoint::Checkpoint;
use dispatch::Dispatch;
use host::{AnswersFile, OpenedHost, answers_left, open_host, open_journal, open_recorder};
use mark::Mark;
pub use mark::Resumed;
use suspend::{Kept, Parts, keep_suspended, print_resume_hint};

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
    /// The plan as GitHub annotations name it (`--output-format github`).
    pub plan: String,
}

/// Runs from `start` with `options` as given and `remembered`, the options
/// resolved (given, or remembered by the snapshot resumed), then reports;
/// the exit status.
pub fn execute(
    mut start: Start,
    options: &HostOptions,
    reporting: &ReportOptions,
    remembered: RememberedOptions,
) -> u8 {
    let OpenedHost { mut host, answers_file, caps, policy } =
        match open(&mut start, options, reporting, &remembered) {
            Ok(opened) => opened,
            Err(code) => return code,
        };
    let Start { program, mut machine, bytecode, workdir, mut resumed, checkpoint, plan, .. } = start;
    machine.set_policy(policy);
    // Else the RUN would start unasked, and its answer go to a later question.
    if !host.answers.is_empty()
        && let Some(command) = machine.approval_not_asked(&program)
    {
        eprintln!(
            "tissvm: the run waits for the approval of `{}`, which the command policy in force does not ask \
             for: that RUN would start (or be refused) unasked, and the answer given for it would go to a later \
             question. Nothing ran. Resume without --answer and --answers to go by this policy, or give the \
             run's policy again with --policy",
            escape_controls(&command)
        );
        return status::INVALID;
    }
    let checkpoint =
        match checkpoint.map(|path| Checkpoint::open(&path, &program, bytecode.as_deref())).transpose() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("tissvm: {e}");
                return status::INVALID;
            }
        };
    if let Some(path) = checkpoint.as_ref().and_then(|c| c.own_path(host.workspace.root())) {
        host.workspace.keep_name(&path, "this run's checkpoint");
    }
    // The state as resumed: if nothing changes it, its snapshot still holds.
    let original = resumed.as_ref().map(|_| machine.clone());
    let raise = resumed.as_ref().is_some_and(|r| r.raise_budget);
    for (dim, value) in caps {
        apply_budget(&mut machine, dim, value, raise);
    }
    // Before any other entry of this run: a replay holds itself to these.
    let limits = crate::runner::replay::record_limits(&machine, host.completion_tokens);
    host.journal(|_| limits);
    // Recorded before the first instruction: a snapshot is resumed once.
    let mark = match resumed.as_mut().map(|r| Mark::start(r, &workdir)).transpose() {
        Ok(mark) => mark.flatten(),
        Err(invalid) => return invalid.report(reporting),
    };
    if let Err(e) = interrupt::install() {
        let warning = color::stderr().paint(Tone::Warn, "warning");
        eprintln!("tissvm: {warning}: cannot handle Ctrl-C ({e}); it will end the run without a snapshot");
    }

    if let Some(from) = &options.restart {
        host = match restart::take_over(&program, &mut machine, host, options, from) {
            Ok(host) => host,
            Err(code) => return code,
        };
    }
    let dispatch = Dispatch {
        program: &program,
        checkpoint: checkpoint.as_ref(),
        answers_file: answers_file.as_ref(),
        remembered: &remembered,
    };
    let answers = answers_file.as_ref().map(|f| f.path.as_path());
    let project_files =
        project_file::ProjectFiles::watch(&mut host, &workdir, answers, options.policy.as_deref());
    let outcome = dispatch.run(&mut machine, &mut host);
    let ended = Ended::close(host);
    project_files.after();
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
    let mut kept = None;
    if suspended {
        let position = answers_file.as_ref().map(|f| f.position(ended.answers_left));
        let parts = Parts { workspace: &ended.workspace, answers: position.as_ref(), options: &remembered };
        let dir = suspend::snapshot_dir(remembered.snapshot_dir.as_deref(), &workdir);
        let resumed_from = resumed.as_ref().map(|r| r.path.as_path()).zip(original.as_ref());
        match keep_suspended(&program, &machine, bytecode, resumed_from, mark.as_ref(), &parts, &dir) {
            Ok(k) => kept = Some(k),
            Err(e) => {
                eprintln!("tissvm: the run is suspended, but its snapshot could not be written: {e}");
                return status::INVALID;
            }
        }
    }
    if let Some(e) = &ended.answer_error {
        return answers_refused(e, kept.as_ref(), answers_file.as_ref());
    }
    if let Some(kept) = &kept {
        let workdir = kept.unsigned_in.as_deref();
        print_resume_hint(&program, &machine, &outcome, &kept.path, workdir, answers_file.as_ref());
    }
    let finished = Finished {
        program: &program,
        machine: &machine,
        outcome: &outcome,
        mark: mark.as_ref(),
        plan: &plan,
    };
    finished.report(kept.map(|k| k.path), ended, reporting)
}

/// Checks where the report goes, then opens the run's host and its
/// cassette; `start`'s answer given in advance goes to the host.
fn open(
    start: &mut Start,
    options: &HostOptions,
    reporting: &ReportOptions,
    remembered: &RememberedOptions,
) -> Result<OpenedHost, u8> {
    if let Err(e) = reporting.check() {
        eprintln!("tissvm: {e}");
        return Err(status::INVALID);
    }
    let progress = match reporting.output_format {
        OutputFormat::Text => Progress::Text { live: std::io::IsTerminal::is_terminal(&std::io::stderr()) },
        _ => Progress::Quiet,
    };
    let recorder = open_recorder(&remembered.provider, start.resumed.is_some())?;
    let journal = open_journal(
        options,
        &start.program,
        start.bytecode.as_deref(),
        start.resumed.is_some(),
        &start.workdir,
    )?;
    let used = start.resumed.as_ref().and_then(|r| r.answers.as_ref());
    let mut opened = open_host(
        &start.program,
        &start.workdir,
        start.first.take(),
        used,
        options,
        remembered,
        progress,
        journal,
    )?;
    allow_answers_of(&mut start.program, opened.host.completion_tokens);
    opened.host.recorder = recorder;
    let isolation = opened.host.sandbox.isolation().clone();
    opened.host.journal(|_| crate::session::journal::Entry::Sandbox {
        profile: isolation.profile.name().to_string(),
        enforced: isolation.enforced.iter().map(|s| s.to_string()).collect(),
        missing: isolation.missing.iter().map(|s| s.to_string()).collect(),
    });
    Ok(opened)
}

/// Makes the preflight of steps and tasks allow `completion` tokens for
/// each model's answer (the run's `max_tokens`), as a prompt's own check
/// does: the module's bounds allow the default, and are remade by
/// `tissvm estimate`'s analysis of the code (which gives the compiler's
/// bounds for the default allowance). A module the analysis cannot follow
/// keeps its compiled bounds. (A replay calls it again where a resumed run
/// allowed another amount.)
pub(crate) fn allow_answers_of(program: &mut Program, completion: u64) {
    if completion == tisslang::analysis::cost_model::DEFAULT_MAX_TOKENS {
        program.use_module_bounds();
        return;
    }
    let mut model = crate::analysis::estimate::CostModel::default();
    model.set_completion_tokens(completion);
    if let Ok(estimate) = crate::analysis::estimate::estimate(&program.module, &model) {
        program.use_bounds(estimate.steps, estimate.tasks);
    }
}

/// What the report and the snapshot need of the host once the run stopped.
struct Ended {
    /// An answer from the answers file that did not fit its interaction.
    answer_error: Option<String>,
    answers_left: u32,
    workspace: PathBuf,
    isolation: Isolation,
    effects: Effects,
    /// The journal, to which the report's status is added last.
    journal: Option<crate::session::journal::writer::JournalWriter>,
}

impl Ended {
    /// Takes what is needed of `host` and closes it: the log flushed, and
    /// the cassette written before the snapshot, complete up to it.
    fn close(mut host: OsHost) -> Ended {
        let answer_error = host.answer_error.take();
        let answers_left = answers_left(&host);
        if let Some(log) = &mut host.log
            && let Err(e) = log.flush().and(log.error.take().map_or(Ok(()), Err))
        {
            eprintln!("tissvm: writing the log file failed: {e}");
        }
        if let Err(e) = host.persist() {
            eprintln!("tissvm: {e}");
        }
        host.warn_of_moved_records();

        Ended {
            answer_error,
            answers_left,
            workspace: host.workspace.root().to_path_buf(),
            isolation: host.sandbox.isolation().clone(),
            effects: std::mem::take(&mut host.effects),
            journal: host.journal.take(),
        }
    }
}

/// An answer from the answers file did not fit: told, with the command
/// that continues the run once the answers are fixed; exit status 2.
fn answers_refused(error: &str, kept: Option<&Kept>, answers_file: Option<&AnswersFile>) -> u8 {
    eprintln!("tissvm: --answers {error}");
    if let Some(kept) = kept {
        let file = answers_file.map_or_else(|| PathBuf::from("FILE"), |f| f.path.clone());
        eprintln!(
            "tissvm: the run stopped before that interaction; its state is in {}: fix the answers and \
             continue with:\n  {}",
            kept.path.display(),
            resume_command::with_answers_file(&kept.path, kept.unsigned_in.as_deref(), &file)
        );
    }
    status::INVALID
}

/// How the run ended, for its report.
struct Finished<'a> {
    program: &'a Program,
    machine: &'a Machine,
    outcome: &'a Outcome,
    mark: Option<&'a Mark>,
    plan: &'a str,
}

impl Finished<'_> {
    /// Writes the report where `reporting` says (a failure also on stderr
    /// when the report is not text), and records in the snapshot resumed
    /// how its run ended; the exit status.
    fn report(&self, snapshot: Option<PathBuf>, mut ended: Ended, reporting: &ReportOptions) -> u8 {
        let suspended = snapshot.is_some();
        let snapshot = snapshot.map(|p| p.display().to_string());
        let mut report = RunReport::new(self.program, self.machine, self.outcome, snapshot.clone());
        if let Some(journal) = &mut ended.journal {
            let status = report.status_name().to_string();
            let failed_step = match &report.status {
                crate::report::RunStatus::Failed(f) => f.step.split(" > ").next().map(str::to_string),
                _ => None,
            };
            journal.record(&crate::session::journal::Entry::End { status, snapshot, failed_step });
            if let Some(e) = journal.error.take() {
                eprintln!("tissvm: {e}: the journal ends before the run did");
            }
        }
        report.sandbox = Some(ended.isolation);
        report.effects = ended.effects;
        if let (Some(mark), false) = (self.mark, suspended) {
            mark.finish(&Continuation::Ended(report.status_name().into()));
        }
        // A report file in the workspace is reached as the plan's paths
        // are: the plan's commands ran since `--report` was given.
        let confined;
        let reporting = match &reporting.report {
            Some(path) => match tiss_host::workspace::own_path(&ended.workspace, path) {
                Ok(own) => {
                    confined = ReportOptions { output_format: reporting.output_format, report: Some(own) };
                    &confined
                }
                Err(tiss_host::Error::Security(why)) => {
                    eprintln!("tissvm: security_violation: the report `{}`: {why}", path.display());
                    return status::SECURITY;
                }
                // Where the path cannot be reached as the plan's are (not
                // UTF-8), it is not written, as for any path that cannot be.
                Err(tiss_host::Error::Command(why)) => {
                    eprintln!("tissvm: cannot write the report: {why}");
                    return status::INTERNAL;
                }
            },
            None => reporting,
        };
        deliver(&report, self.plan, reporting)
    }
}

/// Writes `report` of `plan` where `reporting` says, in its format, a
/// failure also on stderr when the report is not text; the run's exit
/// status. A replay delivers its report the same way.
pub(crate) fn deliver(report: &RunReport, plan: &str, reporting: &ReportOptions) -> u8 {
    let text = match reporting.output_format {
        OutputFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
            text.push('\n');
            text
        }
        OutputFormat::Junit => report.to_junit(),
        OutputFormat::Html => crate::report::html::render(&report.to_json()),
        OutputFormat::Text => report.to_text(color::stdout()),
        OutputFormat::Github => {
            let mut out = Vec::new();
            let heading = format!("TissLang: `{plan}` {}", report.status_name());
            let _ = crate::report::github::write(&mut out, &heading, plan, std::iter::once(report.to_json()));
            String::from_utf8_lossy(&out).into_owned()
        }
    };
    if let (
        OutputFormat::Json | OutputFormat::Junit | OutputFormat::Html | OutputFormat::Github,
        RunStatus::Failed(f),
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
