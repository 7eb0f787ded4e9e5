//! `run PLAN --journal J --from-step NAME` (or `--from-failed`,
//! `--from-line N`; book: cookbook/journal.md): the run goes on live from that top-level
//! step, everything before it taken from the journal J (not run again), as
//! a replay takes it. First the workspace is checked: every file J says
//! the run wrote must still hold what it last wrote (or be gone, if the run
//! deleted it), else nothing runs. The plan may have changed from that step
//! on; before it, an effect that differs from J's refuses the restart.
//! So does a frame of J this user's key did not sign, unless
//! `--trust-journal`: what J says is taken as what happened.

use std::collections::BTreeMap;

use tisslang::isa::Instr;
use tisslang::module::NONE;

use crate::machine::program::Program;
use crate::machine::{Machine, Outcome, Suspension};
use crate::report::style::escape_controls;
use crate::runner::options::{HostOptions, RestartFrom};
use crate::runner::os_host::OsHost;
use crate::runner::replay::host::{ReplayHost, Stop};
use crate::runner::status;
use crate::session::journal::Entry;
use crate::session::journal::reader::{JournalReader, Next};
use crate::session::journal::signature::Check;

/// What a journal says of the run it recorded, read through once.
struct Recorded {
    /// Each file written, in the order first written, with its last hash
    /// (`None`: deleted since).
    files: BTreeMap<String, (usize, Option<[u8; 32]>)>,
    /// The top-level step the run failed in, if it failed.
    failed_step: Option<String>,
}

/// The journal at `path`, each frame checked against this user's key
/// unless `trusted`.
fn open(path: &std::path::Path, trusted: bool) -> Result<JournalReader, String> {
    let check = if trusted { Check::Nothing } else { Check::require() };
    JournalReader::open(path).map(|reader| reader.check(check)).map_err(|e| e.message)
}

fn read_through(path: &std::path::Path, trusted: bool) -> Result<Recorded, String> {
    let mut reader = open(path, trusted)?;
    let mut recorded = Recorded { files: BTreeMap::new(), failed_step: None };
    loop {
        match reader.next_entry().map_err(|e| e.message)? {
            Next::Entry(_, entry) => match *entry {
                Entry::Write { path, file, result: Ok(()), .. } => {
                    let order = recorded.files.len();
                    recorded.files.entry(path).or_insert((order, None)).1 = file;
                }
                Entry::Delete { path, result: Ok(()), .. } => {
                    let prefix = format!("{}/", path.trim_end_matches('/'));
                    for (p, (_, hash)) in recorded.files.iter_mut() {
                        if *p == path || p.starts_with(&prefix) {
                            *hash = None;
                        }
                    }
                }
                Entry::End { failed_step, .. } => recorded.failed_step = failed_step,
                _ => {}
            },
            Next::Torn(_) | Next::End => return Ok(recorded),
        }
    }
}

/// Takes the run in `machine` up to the restart point from the journal,
/// through `host`; the host back, to go on live. A refusal is told, and is
/// the exit status.
pub fn take_over(
    program: &Program,
    machine: &mut Machine,
    host: OsHost,
    options: &HostOptions,
    from: &RestartFrom,
) -> Result<OsHost, u8> {
    let refuse = |message: String| {
        eprintln!("tissvm: {message}; nothing ran");
        status::INVALID
    };
    let Some(path) = &options.journal else { return Err(refuse("a restart needs --journal".into())) };
    let name = path.display();
    let recorded = read_through(path, options.trust_journal).map_err(&refuse)?;
    check_files(&host, &recorded).map_err(&refuse)?;
    let target = target_step(program, from, &recorded).map_err(&refuse)?;

    // Read again, and checked again: the file may have changed since.
    let mut reader = open(path, options.trust_journal).map_err(&refuse)?;
    reader.next_entry().map_err(|e| refuse(e.message))?; // the start
    let mut replay = ReplayHost::new(host, None, reader);
    // The restarted run goes by its own limits, taken-over steps included.
    replay.take_setup();
    replay.allowance = replay.shown.completion_tokens;
    let stopped = std::rc::Rc::clone(&replay.stopped);
    let at_target = |m: &Machine| {
        m.steps.is_empty()
            && matches!(program.module.code.get(m.pc as usize), Some(Instr::StepEnter { step }) if *step == target)
    };
    let mut outcome = machine.run_until(program, &mut replay, |m| stopped.get() || at_target(m));
    // The recorded run was suspended at a gate here and resumed: it went on
    // with the resumed part's answer, and so does what is taken over.
    while matches!(outcome, Outcome::Suspended(Suspension::Interaction { .. }))
        && !stopped.get()
        && replay.past_suspension().resumed
    {
        replay.take_setup();
        outcome = machine.run_until(program, &mut replay, |m| stopped.get() || at_target(m));
    }
    let step_name = program.string(program.module.steps[target as usize].name).to_string();
    match replay.stop.take() {
        Some(Stop::Diverged { recorded, requested }) => {
            return Err(refuse(format!(
                "before step \"{step_name}\", the plan asks for other effects than the run `{name}` recorded: \
                 it recorded {recorded}, the plan asks for {requested} (line {})",
                program.line(machine.pc)
            )));
        }
        Some(Stop::Incomplete { what }) => {
            return Err(refuse(format!(
                "the restart needs the whole output of {what}, which the journal `{name}` kept only in part"
            )));
        }
        Some(Stop::Unreadable(message)) => return Err(refuse(message)),
        None => {}
    }
    if outcome != Outcome::Running || !at_target(machine) {
        // The recorded run stopped there too, or the plan as edited, or
        // this run's limits, stop it now.
        let why = match &outcome {
            Outcome::Failed(f) => {
                format!("{} at line {}: {}", f.kind.name(), f.line, escape_controls(&f.message))
            }
            Outcome::Suspended(_) => format!("it waits for a human at line {}", program.line(machine.pc)),
            Outcome::Completed => "the plan ends before it".to_string(),
            Outcome::Trapped(e) => e.clone(),
            Outcome::Running => format!("it stops at line {}", program.line(machine.pc)),
        };
        return Err(refuse(format!(
            "before step \"{step_name}\", the steps taken over from the run `{name}` stop: {why}; a restart \
             needs them to run as recorded, under this run's --budget and policy"
        )));
    }
    eprintln!(
        "tissvm: restarting at step \"{step_name}\" (line {}): what came before taken from `{name}`",
        program.line(machine.pc)
    );
    // The new journal reads as one run: the time between the last reading
    // taken over and the first live one is left out, as a checkpoint's
    // stop is (a marker between them), and the live clock goes on from
    // that reading, so it never goes back.
    let last_reading = replay.last_reading();
    let mut live = replay.shown;
    live.journal(|_| Entry::Stop);
    live.continue_clock_from(last_reading);
    Ok(live)
}

/// The workspace must hold what the recorded run left in each file it wrote.
fn check_files(host: &OsHost, recorded: &Recorded) -> Result<(), String> {
    let mut files: Vec<_> =
        recorded.files.iter().map(|(path, (order, hash))| (*order, path, *hash)).collect();
    files.sort_unstable();
    for (_, path, hash) in files {
        let on_disk = std::fs::read(host.workspace.root().join(path)).ok();
        let now = on_disk.as_deref().map(tisslang::codec::seal::sha256);
        if now != hash {
            let what = match (hash, now) {
                (Some(_), None) => "is gone",
                (None, Some(_)) => "exists again",
                _ => "has changed",
            };
            return Err(format!(
                "the workspace's `{path}` {what} since the recorded run wrote it: a restart would go on from a \
                 state the run never had"
            ));
        }
    }
    Ok(())
}

/// The step table index of the restart point: a top-level STEP.
fn target_step(program: &Program, from: &RestartFrom, recorded: &Recorded) -> Result<u32, String> {
    let steps = &program.module.steps;
    let top = |i: &usize| steps[*i].depth == 0 && steps[*i].parent == NONE;
    let named = |name: &str| (0..steps.len()).filter(top).find(|&i| program.string(steps[i].name) == name);
    let found = match from {
        RestartFrom::Step(name) => named(name),
        RestartFrom::Failed => match &recorded.failed_step {
            Some(name) => named(name),
            None => return Err("--from-failed: the recorded run did not fail in a step".into()),
        },
        RestartFrom::Line(line) => (0..steps.len()).filter(top).find(|&i| steps[i].line == *line),
    };
    found.map(|i| i as u32).ok_or_else(|| {
        let names: Vec<String> =
            (0..steps.len()).filter(top).map(|i| format!("\"{}\"", program.string(steps[i].name))).collect();
        let wanted = match from {
            RestartFrom::Step(name) => format!("step \"{name}\""),
            RestartFrom::Failed => format!("step \"{}\"", recorded.failed_step.as_deref().unwrap_or("")),
            RestartFrom::Line(line) => format!("step on line {line}"),
        };
        format!("the plan has no top-level {wanted} to restart at; its steps are {}", names.join(", "))
    })
}
