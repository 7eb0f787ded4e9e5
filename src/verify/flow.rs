//! Pass 3: the abstract interpreter. Every instruction is visited once, in
//! pc order (control only goes forward, so every way into an instruction is
//! known before it), with the state every path brings there:
//!
//! - its **code unit**: the main code (from pc 0) or a task (from its
//!   entry). An instruction belongs to one unit; the main code ends in
//!   HALT, a task in RETURN, and a task is called with an empty stack, so
//!   its stack and its open steps are its own;
//! - the **operand stack**, as the type of each value (SPEC §3 types). Each
//!   instruction takes values of the types its `isa!` row wants and gives
//!   back the type the row says; paths that meet bring the same stack;
//! - the **open steps** of the unit, innermost last: STEP_EXIT leaves the
//!   step STEP_ENTER entered, and HALT and RETURN leave none open.
//!
//! A failure at a pc goes to its handler: the first in table order whose
//! range holds the pc, as the machine looks it up. The handler cuts the
//! stack back to its `stack_depth` values and the open steps to its
//! `step_depth`, so every pc in its range must have that many (the stack
//! after the values the instruction takes), and the handler's target is
//! reached with that state. A pc whose ways in all come from inside the
//! same range inherits what its predecessors brought there, so only the
//! pcs where control enters the range are cut back and compared.
//!
//! Alongside, the immediate dominator of every instruction (what the
//! definite-assignment pass, `bindings.rs`, walks), and the calls each unit
//! makes (`calls.rs`).

use crate::isa::{Field, Gives, Instr, Want};
use crate::module::{Constant, Module, NONE, ValueType};

use super::forest::{EMPTY, Forest};
use super::{Result, Unit, VerifyError};

/// Not reached (a pc's unit).
pub(crate) const UNSEEN: u32 = u32::MAX;
/// Above every unit's entry in the dominator tree.
pub(crate) const ROOT: u32 = u32::MAX;

/// A code unit: where it starts, and the first task that starts there
/// (`None`: the main code).
#[derive(Debug, Clone, Copy)]
pub(crate) struct UnitInfo {
    pub entry: u32,
    pub task: Option<u32>,
}

impl UnitInfo {
    pub fn name(&self) -> Unit {
        match self.task {
            None => Unit::Main,
            Some(task) => Unit::Task { task, entry: self.entry },
        }
    }
}

/// What the abstract interpreter learns. Per-pc vectors are indexed by pc.
pub(crate) struct Flow {
    /// Unit 0 is the main code.
    pub units: Vec<UnitInfo>,
    /// Each task's unit.
    pub task_unit: Vec<u32>,
    /// Each pc's unit, or `UNSEEN`.
    pub unit: Vec<u32>,
    /// The operand stack before each pc: a node of `types`.
    pub stack: Vec<u32>,
    pub types: Forest<ValueType>,
    /// The unit's open steps before each pc: a node of `open`.
    pub steps: Vec<u32>,
    pub open: Forest<u32>,
    /// Each pc's immediate dominator (`ROOT` for a unit's entry).
    pub idom: Vec<u32>,
    /// Whether the state at a pc meets from several places (or comes from
    /// a failure): its bound variables are an intersection.
    pub join: Vec<bool>,
    /// The handler a failure at each pc goes to (an index, or `NONE`).
    pub handler: Vec<u32>,
    /// Whether every way into a pc comes from inside its handler's range.
    pub inner: Vec<bool>,
    /// The CALLs reached: (caller unit, callee unit).
    pub calls: Vec<(u32, u32)>,
    /// Steps of analysis so far (see `mod.rs`, `TooComplex`).
    pub work: u64,
}

/// Runs pass 3 over a module whose tables and operands are valid and whose
/// control only goes forward.
pub(crate) fn interpret(m: &Module, limit: u64) -> Result<Flow> {
    let len = m.code.len();
    let mut flow = Flow {
        units: vec![UnitInfo { entry: 0, task: None }],
        task_unit: Vec::with_capacity(m.tasks.len()),
        unit: vec![UNSEEN; len],
        stack: vec![EMPTY; len],
        types: Forest::new(ValueType::Str),
        steps: vec![EMPTY; len],
        open: Forest::new(0),
        idom: vec![ROOT; len],
        join: vec![false; len],
        handler: effective_handlers(m),
        inner: vec![false; len],
        calls: Vec::new(),
        work: 0,
    };
    flow.unit[0] = 0;
    for (t, task) in m.tasks.iter().enumerate() {
        let entry = task.entry as usize;
        let unit = match flow.unit[entry] {
            UNSEEN => {
                flow.units.push(UnitInfo { entry: task.entry, task: Some(t as u32) });
                flow.unit[entry] = (flow.units.len() - 1) as u32;
                flow.unit[entry]
            }
            // Tasks that share an entry share their code.
            u if flow.units[u as usize].task.is_some() => u,
            u => {
                let first = flow.units[u as usize].name();
                let second = Unit::Task { task: t as u32, entry: task.entry };
                return Err(VerifyError::SharedCode { pc: task.entry, first, second });
            }
        };
        flow.task_unit.push(unit);
    }
    let mut interpreter =
        Interpreter { m, flow, taken: Vec::new(), choice_user: vec![UNSEEN; m.choices.len()] };
    for pc in 0..len as u32 {
        if interpreter.flow.unit[pc as usize] != UNSEEN {
            interpreter.visit(pc)?;
        }
        if interpreter.flow.work > limit {
            return Err(VerifyError::TooComplex { work: interpreter.flow.work, limit });
        }
    }
    Ok(interpreter.flow)
}

/// The handler of each pc: the first in table order whose range holds it.
/// Each range is painted over the pcs no earlier handler painted, skipping
/// painted runs with a "next unpainted pc" table (path halving), so nested
/// and repeated ranges cost no more than the code.
fn effective_handlers(m: &Module) -> Vec<u32> {
    let len = m.code.len();
    let mut handler = vec![NONE; len];
    let mut next: Vec<u32> = (0..=len as u32).collect();
    let find = |next: &mut Vec<u32>, mut pc: u32| {
        while next[pc as usize] != pc {
            let skip = next[next[pc as usize] as usize];
            next[pc as usize] = skip;
            pc = skip;
        }
        pc
    };
    for (i, h) in m.handlers.iter().enumerate() {
        let mut pc = find(&mut next, h.start);
        while pc < h.end {
            handler[pc as usize] = i as u32;
            next[pc as usize] = pc + 1;
            pc = find(&mut next, pc + 1);
        }
    }
    handler
}

/// What reaches an instruction.
#[derive(Clone, Copy)]
struct State {
    unit: u32,
    stack: u32,
    steps: u32,
}

struct Interpreter<'a> {
    m: &'a Module,
    flow: Flow,
    /// The types an instruction takes, deepest first (reused).
    taken: Vec<ValueType>,
    /// The CHOOSE that uses each choice.
    choice_user: Vec<u32>,
}

impl Interpreter<'_> {
    fn visit(&mut self, pc: u32) -> Result {
        let i = pc as usize;
        let instr = self.m.code[i];
        let mnemonic = instr.mnemonic();
        let state = State { unit: self.flow.unit[i], stack: self.flow.stack[i], steps: self.flow.steps[i] };
        let depth = self.flow.types.depth(state.stack);
        let takes = instr.takes();
        let pops = takes.len();
        if pops > depth {
            return Err(VerifyError::StackUnderflow { pc, mnemonic, depth, pops });
        }
        if self.flow.handler[i] != NONE {
            self.failure_edge(pc, state, depth - pops)?;
        }

        // The values taken, checked against what the instruction wants.
        self.taken.clear();
        let mut below = state.stack;
        for _ in 0..pops {
            self.taken.extend(self.flow.types.top(below));
            below = self.flow.types.pop(below);
        }
        self.flow.work += u64::from(pops);
        self.taken.reverse();
        for (k, &found) in self.taken.iter().enumerate() {
            let arg = takes.get(k as u32);
            match arg.want {
                Want::Like if k > 0 && self.taken[k - 1] != found => {
                    let left = self.taken[k - 1];
                    return Err(VerifyError::NotAlike { pc, mnemonic, left, right: found });
                }
                Want::SlotType => {
                    if let Instr::Store { slot } = instr {
                        let declared = self.m.slots[slot as usize];
                        if declared.ty != found {
                            let name = self.m.string(declared.name).unwrap_or("?").to_string();
                            return Err(VerifyError::StoreType {
                                pc,
                                slot,
                                name,
                                declared: declared.ty,
                                found,
                            });
                        }
                    }
                }
                want if !want.accepts(found) => {
                    return Err(VerifyError::WrongType {
                        pc,
                        mnemonic,
                        what: arg.what,
                        expected: want,
                        found,
                    });
                }
                _ => {}
            }
        }
        let given = match instr.gives() {
            Gives::Nothing => None,
            Gives::Value(ty) => Some(ty),
            Gives::Constant(index) => Some(match self.m.constants[index as usize] {
                Constant::Str(_) => ValueType::Str,
                Constant::Int(_) => ValueType::Int,
                Constant::Duration(_) => ValueType::Duration,
                Constant::Bool(_) => ValueType::Bool,
            }),
            Gives::Slot(slot) => Some(self.m.slots[slot as usize].ty),
            Gives::Field(field) => {
                // The record is the one value taken.
                let record = self.taken[0];
                match Field::from_u8(field).and_then(|f| record.field(f)) {
                    Some(ty) => Some(ty),
                    None => return Err(VerifyError::NoSuchField { pc, field, record }),
                }
            }
        };
        let stack = match given {
            None => below,
            Some(ty) => {
                if depth - pops + 1 > self.m.max_stack {
                    let depth = u64::from(depth - pops) + 1;
                    return Err(VerifyError::StackOverflow {
                        pc,
                        mnemonic,
                        depth,
                        max_stack: self.m.max_stack,
                    });
                }
                self.flow.types.push(below, ty)
            }
        };

        let mut steps = state.steps;
        match instr {
            Instr::StepEnter { step } => steps = self.flow.open.push(steps, step),
            Instr::StepExit { step } => match self.flow.open.top(steps) {
                None => return Err(VerifyError::StepExitUnopened { pc, step }),
                Some(open) if open != step => return Err(VerifyError::StepExitOther { pc, step, open }),
                Some(_) => steps = self.flow.open.pop(steps),
            },
            _ => {}
        }
        let after = State { stack, steps, ..state };
        match instr {
            Instr::Jump { target } => self.edge(pc, target, after),
            Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                self.edge(pc, target, after)?;
                self.next(pc, after)
            }
            Instr::Choose { choice } => {
                let user = &mut self.choice_user[choice as usize];
                if *user != UNSEEN {
                    return Err(VerifyError::ChoiceShared { choice, pc, other: *user });
                }
                *user = pc;
                let m = self.m;
                for option in &m.choices[choice as usize].options {
                    self.edge(pc, option.target, after)?;
                }
                Ok(())
            }
            Instr::Call { task } => {
                if depth != 0 {
                    return Err(VerifyError::CallDepth { pc, depth });
                }
                let callee = self.flow.task_unit[task as usize];
                self.flow.calls.push((state.unit, callee));
                self.next(pc, after)
            }
            Instr::Halt {} => {
                if state.unit != 0 {
                    return Err(VerifyError::HaltInTask { pc });
                }
                self.all_steps_closed(pc, mnemonic, steps)
            }
            Instr::Return {} => {
                if state.unit == 0 {
                    return Err(VerifyError::ReturnInMain { pc });
                }
                let left = self.flow.types.depth(stack);
                if left != 0 {
                    return Err(VerifyError::ReturnDepth { pc, depth: left });
                }
                self.all_steps_closed(pc, mnemonic, steps)
            }
            // A failure goes to a handler (the failure edge) or ends the run.
            Instr::Fail { .. } => Ok(()),
            _ => self.next(pc, after),
        }
    }

    fn all_steps_closed(&self, pc: u32, mnemonic: &'static str, steps: u32) -> Result {
        if steps == EMPTY {
            Ok(())
        } else {
            Err(VerifyError::StepsOpen { pc, mnemonic, open: self.flow.open.to_vec(steps) })
        }
    }

    /// Falls through to `pc + 1`.
    fn next(&mut self, pc: u32, after: State) -> Result {
        if pc as usize + 1 >= self.m.code.len() {
            let mnemonic = self.m.code[pc as usize].mnemonic();
            return Err(VerifyError::FallsOffEnd { pc, mnemonic });
        }
        self.edge(pc, pc + 1, after)
    }

    /// Control goes from `pc` to `target` with `after`.
    fn edge(&mut self, pc: u32, target: u32, after: State) -> Result {
        let handler = self.flow.handler[pc as usize];
        let inner = handler != NONE && self.flow.handler[target as usize] == handler;
        self.reach(target, pc, after, Some(pc), inner)
    }

    /// A failure at `pc`: its handler's target is reached with the stack and
    /// the open steps cut back. `left` is the stack after the values the
    /// instruction takes (a failure may come after taking them).
    fn failure_edge(&mut self, pc: u32, state: State, left: u32) -> Result {
        let i = pc as usize;
        let index = self.flow.handler[i];
        let h = self.m.handlers[index as usize];
        let handler = index as usize;
        if left < h.stack_depth {
            return Err(VerifyError::HandlerStack { handler, pc, holds: left, stack_depth: h.stack_depth });
        }
        let open = self.flow.open.depth(state.steps);
        if open < h.step_depth {
            return Err(VerifyError::HandlerSteps { handler, pc, open, step_depth: h.step_depth });
        }
        // Every way in comes from the range: the predecessors brought the
        // same state to the target.
        if self.flow.inner[i] {
            return Ok(());
        }
        let stack = self.flow.types.cut(state.stack, h.stack_depth, &mut self.flow.work);
        let steps = self.flow.open.cut(state.steps, h.step_depth, &mut self.flow.work);
        // The target's dominator is above this pc's; one inside the range
        // already counted (and walking up from deep inside a long range to
        // its start, pc after pc, would cost the range's length each time).
        let dom = self.flow.idom[i];
        let counted = dom != ROOT && self.flow.handler[dom as usize] == index;
        self.reach(h.target, pc, State { stack, steps, ..state }, (!counted).then_some(dom), false)?;
        self.flow.join[h.target as usize] = true;
        Ok(())
    }

    /// `target` is reached from `from` with `state`. `dom`: the dominator
    /// this way in brings (`None`: one already counted); `inner`: whether
    /// it comes from inside the target's handler range.
    fn reach(&mut self, target: u32, from: u32, state: State, dom: Option<u32>, inner: bool) -> Result {
        let t = target as usize;
        let flow = &mut self.flow;
        if flow.unit[t] == UNSEEN {
            flow.unit[t] = state.unit;
            flow.stack[t] = state.stack;
            flow.steps[t] = state.steps;
            // The first way into a handler's target always brings its
            // dominator: no pc of the range came before.
            flow.idom[t] = dom.unwrap_or(ROOT);
            flow.inner[t] = inner;
            return Ok(());
        }
        if flow.unit[t] != state.unit {
            let first = flow.units[flow.unit[t] as usize].name();
            let second = flow.units[state.unit as usize].name();
            return Err(VerifyError::SharedCode { pc: target, first, second });
        }
        if !flow.types.same(flow.stack[t], state.stack, &mut flow.work) {
            let this = flow.types.to_vec(flow.stack[t]);
            let other = flow.types.to_vec(state.stack);
            return Err(VerifyError::StackMismatch { pc: target, from, this, other });
        }
        if !flow.open.same(flow.steps[t], state.steps, &mut flow.work) {
            let this = flow.open.to_vec(flow.steps[t]);
            let other = flow.open.to_vec(state.steps);
            return Err(VerifyError::StepsMismatch { pc: target, from, this, other });
        }
        if let Some(dom) = dom {
            flow.idom[t] = lca(&flow.idom, flow.idom[t], dom, &mut flow.work);
        }
        flow.join[t] = true;
        flow.inner[t] &= inner;
        Ok(())
    }
}

/// The nearest common dominator of `a` and `b`: every pc's dominator comes
/// before it, so the later of the two climbs until they meet.
fn lca(idom: &[u32], mut a: u32, mut b: u32, work: &mut u64) -> u32 {
    while a != b {
        if a == ROOT || b == ROOT {
            return ROOT;
        }
        *work += 1;
        if a > b {
            a = idom[a as usize];
        } else {
            b = idom[b as usize];
        }
    }
    a
}
