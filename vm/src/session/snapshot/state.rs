//! A snapshot's run state checked against its bytecode before anything
//! runs (book: reference/snapshots.md: validated, not just decoded). The verifier's facts say
//! what every path brings to each instruction (`tisslang::verify::Facts`);
//! the machine must be in such a state: at a reached pc of the right code
//! unit, each CALL frame returning after a CALL of the unit it runs, the
//! open steps those of each unit on the way, the operand stack of the types
//! the pc expects, every variable and LAST_RUN that every path binds bound
//! (with its declared type), ENV variables the code sets, meters a run can
//! reach, and the question it waits on the one its instruction asks there
//! (so the answer given on resume is taken by that instruction and by no
//! later one, after effects have run). A machine that
//! passes resumes as a fresh run would have continued: the verifier's
//! guarantees hold for it, so it reaches no internal error.

use std::collections::HashSet;

use tisslang::answer::Shapes;
use tisslang::isa::Instr;
use tisslang::module::{Module, NONE};
use tisslang::types::ValueType;
use tisslang::verify::{Facts, PcFacts, Unit};

use crate::host::Question;
use crate::machine::value::{Answer, Record, Value};
use crate::machine::{Machine, Status, Suspension};

/// Whether `machine` is a state `module` can continue from; why not, in words.
pub(super) fn check_state(machine: &Machine, module: &Module, facts: &Facts) -> Result<(), String> {
    let code = module.code.len();
    match &machine.status {
        Status::Running | Status::Suspended(Suspension::Requested) => {}
        Status::Suspended(Suspension::Interaction { question, .. }) => {
            let at = module.code.get(machine.pc as usize);
            // A RUN asks only for the command policy's approval.
            let fits = match question {
                Question::Approval { .. } => matches!(at, Some(Instr::Run { .. })),
                _ => matches!(at, Some(Instr::Pause {} | Instr::Review { .. } | Instr::Choose { .. })),
            };
            if !fits {
                return Err(format!("it waits for an answer at pc {}, which is no interaction", machine.pc));
            }
        }
        Status::Completed => return Err("the run it holds has already completed".into()),
        Status::Failed(_) => return Err("the run it holds has already failed".into()),
    }
    if machine.pc as usize >= code {
        return Err(format!("pc {} is past the end of the code ({code} instructions)", machine.pc));
    }
    let shapes = Shapes::resolve(&module.shapes, |n| module.string(n))?;
    variables(machine, module, &shapes)?;
    environment(machine, module)?;
    meters(machine, module)?;
    asked(machine)?;
    let levels = levels(machine, module, facts)?;
    steps(machine, &levels)?;
    stack(machine, &levels, &shapes)?;
    bound(machine, module, &levels)?;
    waiting(machine, module)
}

/// The question a suspended run waits on is the one the instruction at
/// the pc asks in this state, at its line: the answer given on resume is
/// checked against it, and the instruction, run again, asks it again, so
/// the answer is taken by that instruction and by no later one. (What a
/// RUN's approval asks for besides its command is the policy's to say.)
fn waiting(machine: &Machine, module: &Module) -> Result<(), String> {
    let Status::Suspended(Suspension::Interaction { question, line }) = &machine.status else {
        return Ok(());
    };
    let pc = machine.pc;
    let top = || machine.stack.last().map(Value::to_text).unwrap_or_default();
    let fits = match (question, &module.code[pc as usize]) {
        (Question::Pause { message }, Instr::Pause {})
        | (Question::Review { message }, Instr::Review { .. }) => *message == top(),
        (Question::Choose { prompt, options }, Instr::Choose { choice }) => {
            module.choices.get(*choice as usize).is_some_and(|table| {
                let asked = (table.prompt != NONE).then(|| module.string(table.prompt).unwrap_or_default());
                prompt.as_deref() == asked
                    && options.len() == table.options.len()
                    && options.iter().zip(&table.options).all(|(o, t)| module.string(t.label) == Some(o))
            })
        }
        (Question::Approval { command, .. }, Instr::Run { flags }) => {
            machine.command_operand(*flags).and_then(Value::text).is_some_and(|c| **c == **command)
        }
        _ => false,
    };
    if !fits {
        return Err(format!(
            "it waits for an answer to {}, which the code at pc {pc} does not ask",
            question.describe()
        ));
    }
    let at = module.position(pc).map_or(0, |(line, _)| line);
    if *line != at {
        return Err(format!(
            "it waits for an answer at line {line}, but the question at pc {pc} is at line {at}"
        ));
    }
    Ok(())
}

/// The prompts asked, by fingerprint: sorted and each once (the machine
/// looks them up by binary search), each asked, no more than the run asked.
fn asked(machine: &Machine) -> Result<(), String> {
    if let Some(pair) = machine.asked.windows(2).find(|w| w[0].0 >= w[1].0) {
        let hex: String = pair[1].0.iter().map(|b| format!("{b:02x}")).collect();
        return Err(format!("its prompts asked are not in order, or repeat one (at {hex})"));
    }
    let total: u64 = machine.asked.iter().map(|(_, n)| u64::from(*n)).sum();
    if machine.asked.iter().any(|(_, n)| *n == 0) || total > u64::from(machine.prompts) {
        return Err(format!(
            "its prompts asked count {total} askings, and the run has asked {} prompts",
            machine.prompts
        ));
    }
    Ok(())
}

/// Each bound variable holds a value of its declared type, so a LOAD never
/// hands an instruction a value it cannot take.
fn variables(machine: &Machine, module: &Module, shapes: &Shapes) -> Result<(), String> {
    if machine.slots.len() != module.slots.len() {
        return Err(format!(
            "{} variable slots, the bytecode has {}",
            machine.slots.len(),
            module.slots.len()
        ));
    }
    for (i, (value, slot)) in machine.slots.iter().zip(&module.slots).enumerate() {
        if let Some(value) = value
            && !fits_type(value, slot.ty, shapes)
        {
            return Err(format!(
                "slot {i}: variable `{}` holds a {}, but the bytecode declares it a {}",
                module.string(slot.name).unwrap_or("?"),
                value.type_name(),
                slot.ty.name()
            ));
        }
    }
    Ok(())
}

/// Each ENV variable is one an ENV of the code sets, once: its name goes
/// into every later RUN's environment as it stands.
fn environment(machine: &Machine, module: &Module) -> Result<(), String> {
    if machine.env.is_empty() {
        return Ok(());
    }
    let names: HashSet<&str> = module
        .code
        .iter()
        .filter_map(|i| match i {
            Instr::Env { name } => module.string(*name),
            _ => None,
        })
        .collect();
    let mut seen = HashSet::with_capacity(machine.env.len());
    for (name, _) in &machine.env {
        if !names.contains(name.as_str()) {
            return Err(format!("ENV variable `{}` is set by no ENV of the code", name.escape_debug()));
        }
        if !seen.insert(name.as_str()) {
            return Err(format!("ENV variable `{}` is set twice", name.escape_debug()));
        }
    }
    Ok(())
}

/// Meters within what a run can count (the machine adds to them without
/// checking), steps entered no later than now, finished steps and logs
/// naming steps that exist.
fn meters(machine: &Machine, module: &Module) -> Result<(), String> {
    const MOST: u64 = i64::MAX as u64;
    if let Some((dim, &value)) = machine.meters.iter().find(|&(_, &v)| v > MOST) {
        let dim = dim.name();
        return Err(format!("the {dim} meter stands at {value}, more than a run can count"));
    }
    for open in &machine.steps {
        if open.meters_at_entry.iter().any(|(dim, at)| *at > machine.meters[dim]) {
            return Err(format!("open step {} was entered with more spent than the run has", open.step));
        }
    }
    let steps = module.steps.len();
    if let Some(record) = machine.step_records.iter().find(|r| r.step as usize >= steps) {
        return Err(format!("finished step {} does not exist", record.step));
    }
    if let Some(log) = machine.logs.iter().find(|l| l.step as usize >= steps) {
        return Err(format!("a LOG message is under step {}, which does not exist", log.step));
    }
    Ok(())
}

/// One unit on the way to the pc: where it stands (the CALL it made, or
/// the pc itself for the innermost) and what every path brings there.
struct Level {
    pc: u32,
    facts: PcFacts,
}

/// The units from the main code to the pc: each CALL frame returns after a
/// CALL made by the unit of the frame before it, and the pc is in the unit
/// the last frame called.
fn levels(machine: &Machine, module: &Module, facts: &Facts) -> Result<Vec<Level>, String> {
    // No recursion: each task's unit is on the way at most once.
    if machine.frames.len() > module.tasks.len() {
        return Err(format!("{} CALL frames for {} tasks", machine.frames.len(), module.tasks.len()));
    }
    let reached =
        |pc: u32| facts.at(module, pc).ok_or_else(|| format!("no path of the code reaches pc {pc}"));
    let mut levels = Vec::with_capacity(machine.frames.len() + 1);
    let mut unit = Unit::Main;
    for (k, frame) in machine.frames.iter().enumerate() {
        let call = frame.return_pc.checked_sub(1);
        let Some((pc, Instr::Call { task })) = call.and_then(|pc| Some((pc, *module.code.get(pc as usize)?)))
        else {
            return Err(format!(
                "CALL frame {k} returns to pc {}, which does not follow a CALL",
                frame.return_pc
            ));
        };
        let here = reached(pc)?;
        if here.unit != unit {
            return Err(format!("CALL frame {k} returns into {}, but the code it left is {unit}", here.unit));
        }
        levels.push(Level { pc, facts: here });
        unit = facts.task_unit(task).ok_or_else(|| format!("the CALL at pc {pc} calls no task"))?;
    }
    let here = reached(machine.pc)?;
    if here.unit != unit {
        return Err(format!("pc {} is in {}, but the innermost CALL ran {unit}", machine.pc, here.unit));
    }
    levels.push(Level { pc: machine.pc, facts: here });
    Ok(levels)
}

/// The open steps are each unit's on the way, outermost first, and each
/// frame counts those open at its CALL.
fn steps(machine: &Machine, levels: &[Level]) -> Result<(), String> {
    let mut expected = Vec::new();
    for (k, level) in levels.iter().enumerate() {
        expected.extend_from_slice(&level.facts.steps);
        if let Some(frame) = machine.frames.get(k)
            && frame.step_base as usize != expected.len()
        {
            return Err(format!(
                "CALL frame {k} counts {} open steps at its CALL (pc {}), where the code has {}",
                frame.step_base,
                level.pc,
                expected.len()
            ));
        }
    }
    let open: Vec<u32> = machine.steps.iter().map(|s| s.step).collect();
    if open != expected {
        return Err(format!("the open steps are {open:?}, where the code has {expected:?} open"));
    }
    Ok(())
}

/// A task is called with an empty stack, so the stack is the innermost unit's.
fn stack(machine: &Machine, levels: &[Level], shapes: &Shapes) -> Result<(), String> {
    let Some(level) = levels.last() else { return Ok(()) };
    let expected = &level.facts.stack;
    let fits = machine.stack.len() == expected.len()
        && machine.stack.iter().zip(expected).all(|(value, &ty)| fits_type(value, ty, shapes));
    if !fits {
        let held: Vec<&str> = machine.stack.iter().map(Value::type_name).collect();
        let wanted: Vec<&str> = expected.iter().map(|t| t.name()).collect();
        return Err(format!(
            "the operand stack holds [{}], but at pc {} it holds [{}]",
            held.join(", "),
            level.pc,
            wanted.join(", ")
        ));
    }
    Ok(())
}

/// What every path binds before each level's pc is bound.
fn bound(machine: &Machine, module: &Module, levels: &[Level]) -> Result<(), String> {
    for level in levels {
        for &slot in &level.facts.bound {
            if machine.slots.get(slot as usize).is_none_or(Option::is_none) {
                let name = module.slots.get(slot as usize).and_then(|s| module.string(s.name)).unwrap_or("?");
                return Err(format!(
                    "variable `{name}` (slot {slot}) is empty, but every path to pc {} binds it",
                    level.pc
                ));
            }
        }
        if level.facts.last_run && machine.last_run.is_none() {
            return Err(format!("LAST_RUN is empty, but every path to pc {} runs a command", level.pc));
        }
    }
    Ok(())
}

/// Whether a value is of static type `ty`.
fn fits_type(value: &Value, ty: ValueType, shapes: &Shapes) -> bool {
    use ValueType as T;
    match (value, ty) {
        // A typed answer: its shape, a tree that follows it, and the text and
        // taint the VM would have made of that tree.
        (Value::Answer(a), T::Answer(shape)) => {
            a.shape == shape && a.value.conforms(shapes, shape) && {
                let made = Answer::new(shapes, shape, a.value.clone());
                made.json == a.json && made.tainted == a.tainted
            }
        }
        (Value::Str(_) | Value::Tainted(_), T::Str)
        | (Value::Int(_), T::Int)
        | (Value::Duration(_), T::Duration) => true,
        (Value::Bool(_), T::Bool) => true,
        (Value::Record(r), _) => matches!(
            (r.as_ref(), ty),
            (Record::LastRun { .. }, T::LastRun)
                | (Record::Cost(_), T::Cost)
                | (Record::Error(_), T::Error)
                | (Record::Review { .. }, T::Review)
                | (Record::Estimate(_), T::Estimate)
        ),
        _ => false,
    }
}
