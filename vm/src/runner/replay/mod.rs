//! `tissvm replay JOURNAL [PLAN]` (book: cookbook/journal.md): the plan run again from its
//! journal alone, no effect carried out (`host.rs`), and its report given
//! as the recorded run gave it. The bytecode is the journal's, or PLAN's:
//! a changed plan replays up to the first effect that differs, where it
//! stops as `diverged` (exit 1), naming the line, the step, and what was
//! recorded against what is asked; `--strict` refuses any change (exit 2).
//! A recorded run that was suspended and resumed replays as one run.

pub mod host;
mod limits;
pub mod summary;

pub(crate) use limits::record as record_limits;

use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;

use serde_json::json;
use tiss_host::sandbox::{Isolation, Profile, mechanism};
use tiss_host::workspace::Workspace;

use crate::machine::program::Program;
use crate::machine::{Machine, Outcome, Suspension};
use crate::provider::mock::MockProvider;
use crate::report::RunReport;
use crate::report::style::escape_controls;
use crate::runner::options::{OutputFormat, ReportOptions};
use crate::runner::os_host::{OsHost, Progress};
use crate::runner::plan::{Diagnostics, load_plan};
use crate::runner::{color, status};
use crate::session::journal::Entry;
use crate::session::journal::reader::{JournalReader, Next};
use crate::session::journal::signature::{Check, NotYours};
use host::{ReplayHost, Stop, describe};

pub struct ReplayOptions {
    pub journal: PathBuf,
    /// Replay this plan instead of the journal's bytecode.
    pub plan: Option<PathBuf>,
    /// Refuse a plan whose bytecode differs from the journal's.
    pub strict: bool,
    pub report: ReportOptions,
}

/// Replays; the exit status (the recorded run's, `diverged` 1, a journal
/// or plan that cannot be replayed 2).
pub fn replay(out: &mut Diagnostics, options: &ReplayOptions) -> u8 {
    let refuse = |message: String| {
        eprintln!("tissvm: {message}");
        status::INVALID
    };
    if let Err(e) = options.report.check() {
        return refuse(e);
    }
    let (reader, recorded_hash, bytecode) = match open_journal(&options.journal) {
        Ok(opened) => opened,
        Err(e) => return refuse(e),
    };
    let name = options.journal.display();
    let module = match &options.plan {
        Some(path) => match load_plan(out, path) {
            Ok(plan) => plan.module,
            Err(refused) => return refused.report(&options.report),
        },
        None => match tisslang::container::load(&bytecode) {
            Ok(m) => m,
            Err(e) => return refuse(format!("the journal `{name}` holds bytecode that does not load: {e}")),
        },
    };
    let mut program = match Program::new(module) {
        Ok(p) => p,
        Err(e) => return refuse(e),
    };
    if program.hash() != recorded_hash {
        if options.strict {
            return refuse(format!(
                "the plan's bytecode differs from the one the journal `{name}` recorded (--strict refuses any change)"
            ));
        }
        eprintln!(
            "tissvm: note: the plan differs from the recorded one: it replays up to the first effect that differs"
        );
    }
    let mut host = match replay_host(reader, options.report.output_format) {
        Ok(h) => h,
        Err(e) => return refuse(e),
    };
    let mut machine = Machine::new(&program);
    let mut isolation = match host.set_up_as_recorded(&mut machine, &mut program) {
        Ok(isolation) => isolation,
        Err(e) => return refuse(format!("the journal `{name}` cannot be replayed: {e}")),
    };
    let (last_pc, last_step) = (Rc::new(Cell::new(0u32)), Rc::new(Cell::new(None)));
    let stopped = Rc::clone(&host.stopped);
    let mut snapshot = None;
    let outcome = loop {
        let outcome = machine.run_until(&program, &mut host, |m| {
            last_pc.set(m.pc);
            last_step.set(m.steps.last().map(|s| s.step));
            stopped.get()
        });
        // At a gate (not a stop asked for, Ctrl-C).
        if stopped.get() || !matches!(outcome, Outcome::Suspended(Suspension::Interaction { .. })) {
            break outcome;
        }
        // The recorded run stopped here; it went on if it was resumed.
        let suspended = host.past_suspension();
        snapshot = suspended.snapshot;
        if !suspended.resumed {
            break outcome;
        }
        // The resumed run's report shows its own sandbox, as this one does.
        match host.set_up_as_recorded(&mut machine, &mut program) {
            Ok(resumed) => isolation = resumed.or(isolation),
            Err(e) => return refuse(format!("the journal `{name}` cannot be replayed: {e}")),
        }
        // The resumed run's report lists its own effects, as it did.
        host.shown.effects = Default::default();
    };
    if host.stop.is_none() && !matches!(outcome, Outcome::Suspended(_)) {
        left_over(&mut host);
    }
    let line = program.line(last_pc.get());
    let step =
        last_step.get().and_then(|s| program.module.steps.get(s as usize)).map(|s| program.string(s.name));
    let plan =
        crate::runner::plan::shown_name(options.plan.as_deref(), &program.module.source, &name.to_string());
    if let Some(not) = host.not_yours() {
        eprintln!("tissvm: note: {}", not.replay_note(&name.to_string()));
    }
    match host.stop.take() {
        Some(Stop::Diverged { recorded, requested }) => {
            let divergence =
                Divergence { plan: &plan, line, step, recorded: &recorded, requested: &requested };
            return diverged(&options.report, &divergence);
        }
        Some(Stop::Incomplete { what }) => {
            return refuse(format!(
                "the replay needs the whole output of {what}, which the journal `{name}` kept only in part \
                 (above its --journal-max-output): it stops there"
            ));
        }
        Some(Stop::Unreadable(message)) => return refuse(message),
        None => {}
    }
    if let Some(at) = host.torn {
        eprintln!("tissvm: note: the journal `{name}` ends cut short at byte {at}: replayed up to there");
    }
    let mut report = RunReport::new(&program, &machine, &outcome, snapshot);
    report.sandbox = isolation;
    report.effects = std::mem::take(&mut host.shown.effects);
    crate::runner::execute::deliver(&report, &plan, &options.report)
}

/// The journal at `path`: a reader past its first entry (noting the first
/// frame this user's key did not sign), and the bytecode that entry
/// recorded (its hash, and the bytes).
pub(crate) fn open_journal(path: &std::path::Path) -> Result<(JournalReader, String, Vec<u8>), String> {
    let mut reader = JournalReader::open(path).map_err(|e| e.message)?.check(Check::note());
    let name = path.display();
    match reader.next_entry() {
        Ok(Next::Entry(_, entry)) => match *entry {
            Entry::Start { module_hash, bytecode, .. } => Ok((reader, module_hash, bytecode)),
            other => Err(format!("the journal `{name}` starts with {}, not its bytecode", other.kind())),
        },
        Ok(_) => Err(format!("the journal `{name}` holds no entry")),
        Err(e) => Err(e.message),
    }
}

/// The first frame of the journal at `path` this user's key did not sign,
/// read through once (for a replay that tells it before it starts).
pub(crate) fn first_not_yours(path: &std::path::Path) -> Result<Option<NotYours>, String> {
    let mut reader = JournalReader::open(path).map_err(|e| e.message)?.check(Check::note());
    while let Next::Entry(..) = reader.next_entry().map_err(|e| e.message)? {
        if reader.not_yours().is_some() {
            break;
        }
    }
    Ok(reader.not_yours().cloned())
}

/// The host that answers from `reader`, showing what the run showed.
pub(crate) fn replay_host(reader: JournalReader, format: OutputFormat) -> Result<ReplayHost, String> {
    // An empty directory of its own: the replay never touches it, but the
    // host that shows the run wants a workspace.
    let empty = tempfile::tempdir().map_err(|e| format!("cannot make a directory for the replay: {e}"))?;
    let workspace = Workspace::open(empty.path())
        .map_err(|e| format!("cannot make a directory for the replay: {e:?}"))?;
    let progress = match format {
        OutputFormat::Text => Progress::Text { live: false },
        _ => Progress::Quiet,
    };
    let mut shown = OsHost::new(workspace, Box::new(MockProvider::default()), progress);
    shown.style = match format {
        OutputFormat::Text => color::stdout(),
        _ => color::stderr(),
    };
    Ok(ReplayHost::new(shown, Some(empty), reader))
}

/// The report's `sandbox`, as the journal recorded it: a profile and
/// mechanisms by the names this tissvm gives them, or why not.
fn sandbox(entry: Option<Entry>) -> Result<Option<Isolation>, String> {
    let Some(Entry::Sandbox { profile, enforced, missing }) = entry else { return Ok(None) };
    let names = |names: Vec<String>| {
        names
            .into_iter()
            .map(|name| {
                mechanism(&name).ok_or_else(|| {
                    format!(
                        "its sandbox entry names `{}`, which is no sandbox mechanism",
                        escape_controls(&name)
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let Some(profile) = Profile::from_name(&profile) else {
        return Err(format!(
            "its sandbox entry names `{}`, which is no sandbox profile",
            escape_controls(&profile)
        ));
    };
    Ok(Some(Isolation { profile, enforced: names(enforced)?, missing: names(missing)? }))
}

/// The plan ended: the journal must hold nothing more it took from outside.
fn left_over(host: &mut ReplayHost) {
    while let Some(Entry::Clock { .. } | Entry::Stop) = host.peek() {
        host.take();
    }
    match host.peek() {
        None | Some(Entry::End { .. }) => {}
        Some(entry) => {
            let recorded = describe(entry);
            host.stop = Some(Stop::Diverged { recorded, requested: "nothing more (the plan ended)".into() });
        }
    }
}

/// Where a replay parted from its journal.
struct Divergence<'a> {
    plan: &'a str,
    line: u32,
    step: Option<&'a str>,
    recorded: &'a str,
    requested: &'a str,
}

fn diverged(reporting: &ReportOptions, d: &Divergence) -> u8 {
    let code = crate::runner::status::FAILED;
    let (line, step, recorded, requested) = (d.line, d.step, d.recorded, d.requested);
    let message = {
        let step = step.map(|s| format!(" (step \"{}\")", escape_controls(s))).unwrap_or_default();
        format!(
            "diverged at line {line}{step}: the journal recorded {}, the plan asks for {}\n",
            escape_controls(recorded),
            escape_controls(requested)
        )
    };
    let text = match reporting.output_format {
        OutputFormat::Json => {
            let report = json!({
                "status": "diverged",
                "exit_code": code,
                "line": line,
                "step": step,
                "recorded": recorded,
                "requested": requested,
            });
            let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
            text.push('\n');
            text
        }
        // An error annotation at the line, as a failure of the plan.
        OutputFormat::Github => {
            let report = json!({
                "status": "diverged",
                "exit_code": code,
                "failure": {"kind": "diverged", "message": message.trim_end(), "step": step, "line": line},
            });
            let mut out = Vec::new();
            let heading = format!("TissLang: the replay of `{}` diverged", d.plan);
            let _ = crate::report::github::write(&mut out, &heading, d.plan, std::iter::once(report));
            String::from_utf8_lossy(&out).into_owned()
        }
        _ => message.clone(),
    };
    if reporting.output_format != OutputFormat::Text {
        eprint!("{message}");
    }
    reporting.deliver(&text, code)
}
