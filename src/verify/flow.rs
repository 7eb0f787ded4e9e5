//! Pass 3: the abstract interpreter. Every instruction is visited once, in
//! pc order (control only goes forward, so every way into an instruction is
//! known before it), with the state every path brings there:
//!
//! - its **code unit**: the main code (from pc 0) or a task (from its
//!   entry). An instruction belongs to one unit; the main code ends in
//!   HALT, a task in RETURN, and a task is called with an empty stack, so
//!   its stack and its open steps are its own;
//! - the **operand stack**, as the type of each value (types: book: reference/expressions.md). Each
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
//!
//! What is learnt is kept a record per basic block (`blocks.rs`): the state
//! falling through from one pc to the next is carried in hand, and only the
//! ways into the pcs control jumps or fails to wait, in [`Ahead`], until
//! their pc is visited.

use crate::answer::Shape;
use crate::isa::{Gives, Instr, Want};
use crate::module::{Constant, Module, NONE};
use crate::types::{Field, ValueType};

use super::blocks::{Ahead, Blocks, Way, lca};
use super::error::{Result, Unit, VerifyError};
use super::forest::{EMPTY, Forest, TypeForest};

/// None yet (the CHOOSE that uses a choice, the unit that needs a slot).
pub(crate) const UNSEEN: u32 = u32::MAX;
/// Above every unit's entry in the dominator tree: past every pc, a
/// module's code being shorter (`verify` refuses longer, `CodeTooLong`;
/// no loadable module comes near it), and 30 bits, beside `At`'s flags.
pub(crate) const ROOT: u32 = (1 << 30) - 1;

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

/// What every path brings to one instruction, and what the passes after
/// need to know of it: 16 bytes, the two flags in the dominator's top bits
/// (pcs need 30, a module's code being shorter than [`ROOT`]). Kept for the
/// first instruction of each block ([`Blocks`]); read and written whole,
/// never borrowed. The handler of each pc is kept apart
/// ([`Flow::handler`]), only in a module that has handlers: most plans
/// have no TRY.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At {
    /// Its code unit.
    pub unit: u32,
    /// The operand stack before it: a node of `Flow::types`.
    pub stack: u32,
    /// The unit's open steps before it: a node of `Flow::open`.
    pub steps: u32,
    /// Its immediate dominator (`ROOT` for a unit's entry) in the low 30
    /// bits; [`At::JOIN`] and [`At::INNER`] above.
    dom: u32,
}

impl At {
    /// Its state meets from several places (or comes from a failure): its
    /// bound variables are an intersection.
    const JOIN: u32 = 1 << 31;
    /// Every way into it comes from inside its handler's range.
    const INNER: u32 = 1 << 30;

    pub(crate) fn new(unit: u32, stack: u32, steps: u32, idom: u32, join: bool, inner: bool) -> At {
        let flags = if join { At::JOIN } else { 0 } | if inner { At::INNER } else { 0 };
        At { unit, stack, steps, dom: (idom & ROOT) | flags }
    }

    /// Its immediate dominator (`ROOT` for a unit's entry).
    pub fn idom(self) -> u32 {
        self.dom & ROOT
    }

    /// Whether its state meets from several places (or comes from a
    /// failure): its bound variables are an intersection.
    pub fn join(self) -> bool {
        self.dom & At::JOIN != 0
    }

    /// Whether every way into it comes from inside its handler's range.
    pub fn inner(self) -> bool {
        self.dom & At::INNER != 0
    }
}

/// What the abstract interpreter learns.
#[derive(Debug)]
pub(crate) struct Flow {
    /// Unit 0 is the main code.
    pub units: Vec<UnitInfo>,
    /// Each task's unit.
    pub task_unit: Vec<u32>,
    /// The state at each block's start (`blocks.rs`).
    pub blocks: Blocks,
    /// Per pc, the handler a failure at it goes to (an index, or `NONE`);
    /// empty when the module has no handlers.
    handlers: Vec<u32>,
    pub types: TypeForest,
    pub open: Forest<u32>,
    /// The CALLs reached: (caller unit, callee unit).
    pub calls: Vec<(u32, u32)>,
    /// Steps of analysis so far (see `mod.rs`, `TooComplex`).
    pub work: u64,
    /// Whether pc order visits each unit's dominator tree depth first
    /// (each pc's dominator is on the way to the pc before it in its unit,
    /// as in the code a compiler emits for nested blocks), and each unit's
    /// pcs lie in `span`s that together cover the code about once. Then
    /// `bindings.rs` walks the tree in pc order, with no tree built.
    pub in_order: bool,
    /// Per unit: its first and last pc reached.
    pub span: Vec<(u32, u32)>,
}

impl Flow {
    /// The handler a failure at `pc` goes to (an index, or `NONE`).
    pub fn handler(&self, pc: u32) -> u32 {
        self.handlers.get(pc as usize).copied().unwrap_or(NONE)
    }

    /// Whether falling through from `pc - 1` to `pc` stays inside a
    /// handler's range (the only way into a pc inside a block).
    pub fn falls_inside(&self, pc: u32) -> bool {
        let handler = self.handler(pc - 1);
        handler != NONE && self.handler(pc) == handler
    }
}

/// Runs pass 3 over a module whose tables and operands are valid and whose
/// control only goes forward.
pub(crate) fn interpret(m: &Module, limit: u64) -> Result<Flow> {
    let len = m.code.len();
    let flow = Flow {
        units: vec![UnitInfo { entry: 0, task: None }],
        task_unit: Vec::with_capacity(m.tasks.len()),
        blocks: Blocks::new(len),
        handlers: paint_handlers(m),
        // Type stacks repeat (`forest.rs`); each STEP_ENTER pushes one open step.
        types: TypeForest::new(),
        open: Forest::with_capacity(m.steps.len(), 0),
        calls: Vec::new(),
        work: 0,
        in_order: true,
        span: Vec::new(),
    };
    let mut interpreter = Interpreter {
        m,
        flow,
        choice_user: vec![UNSEEN; m.choices.len()],
        path: Vec::new(),
        ahead: Ahead::new(len),
        fall: None,
    };
    // Each unit starts with nothing on its stack and no step open.
    interpreter.ahead.set(0, 0, Way { at: At::new(0, EMPTY, EMPTY, ROOT, false, false), last: None });
    for (t, task) in m.tasks.iter().enumerate() {
        let flow = &mut interpreter.flow;
        let unit = match interpreter.ahead.get(task.entry) {
            None => {
                let unit = flow.units.len() as u32;
                flow.units.push(UnitInfo { entry: task.entry, task: Some(t as u32) });
                let at = At::new(unit, EMPTY, EMPTY, ROOT, false, false);
                interpreter.ahead.set(0, task.entry, Way { at, last: None });
                unit
            }
            // Tasks that share an entry share their code.
            Some(way) if flow.units[way.at.unit as usize].task.is_some() => way.at.unit,
            Some(way) => {
                let first = flow.units[way.at.unit as usize].name();
                let second = Unit::Task { task: t as u32, entry: task.entry };
                return Err(VerifyError::SharedCode { pc: task.entry, first, second });
            }
        };
        interpreter.flow.task_unit.push(unit);
    }
    interpreter.flow.span = vec![(u32::MAX, 0); interpreter.flow.units.len()];
    for pc in 0..len as u32 {
        let fall = interpreter.fall.take();
        // Every way in is known now.
        let at = if let Some(way) = interpreter.ahead.take(pc) {
            let at = match fall {
                None => way.at,
                Some(fall) => interpreter.meet(pc, way, fall)?,
            };
            interpreter.flow.blocks.open(pc, at);
            Some(at)
        } else {
            if fall.is_some() {
                interpreter.flow.blocks.extend(pc);
            }
            fall
        };
        if let Some(at) = at {
            interpreter.follow_order(pc, at);
            interpreter.visit(pc, at)?;
        }
        if interpreter.flow.work > limit {
            return Err(VerifyError::TooComplex { work: interpreter.flow.work, limit });
        }
    }
    let mut flow = interpreter.flow;
    let covered: u64 = flow.span.iter().map(|&(first, last)| u64::from(last.saturating_sub(first)) + 1).sum();
    flow.in_order &= covered <= 2 * len as u64;
    Ok(flow)
}

/// The handler of each pc: the first in table order whose range holds it
/// (nothing when the module has no handlers). Each range is painted over
/// the pcs no earlier handler painted, skipping painted runs with a "next
/// unpainted pc" table (path halving), so nested and repeated ranges cost
/// no more than the code.
fn paint_handlers(m: &Module) -> Vec<u32> {
    if m.handlers.is_empty() {
        return Vec::new();
    }
    let mut at = vec![NONE; m.code.len()];
    let mut next: Vec<u32> = (0..=at.len() as u32).collect();
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
            at[pc as usize] = i as u32;
            next[pc as usize] = pc + 1;
            pc = find(&mut next, pc + 1);
        }
    }
    at
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
    /// The CHOOSE that uses each choice.
    choice_user: Vec<u32>,
    /// The dominators of the last pc visited, while `flow.in_order` holds,
    /// as runs of consecutive pcs each the dominator of the next (first,
    /// last): straight-line code is one run, not a pc each.
    path: Vec<(u32, u32)>,
    /// The ways into the pcs ahead so far.
    ahead: Ahead,
    /// What falling through from the pc visited last brings to the next.
    fall: Option<At>,
}

impl Interpreter<'_> {
    /// Keeps `flow.in_order` and the units' spans up to date with `pc`,
    /// whose dominator is known (every way in has been followed).
    fn follow_order(&mut self, pc: u32, at: At) {
        let span = &mut self.flow.span[at.unit as usize];
        *span = (span.0.min(pc), pc);
        if !self.flow.in_order {
            return;
        }
        // Back up the path to the dominator.
        while let Some(run) = self.path.last_mut() {
            if run.0 <= at.idom() && at.idom() <= run.1 {
                run.1 = at.idom();
                break;
            }
            self.path.pop();
        }
        if at.idom() != ROOT && self.path.is_empty() {
            self.flow.in_order = false;
        }
        match self.path.last_mut() {
            Some(run) if run.1 + 1 == pc && run.1 == at.idom() => run.1 = pc,
            _ => self.path.push((pc, pc)),
        }
    }

    fn visit(&mut self, pc: u32, at: At) -> Result {
        let instr = self.m.code[pc as usize];
        // Named in errors only (a match per instruction otherwise).
        let mnemonic = || instr.mnemonic();
        let state = State { unit: at.unit, stack: at.stack, steps: at.steps };
        let depth = self.flow.types.depth(state.stack);
        let takes = instr.takes();
        let pops = takes.len();
        if pops > depth {
            return Err(VerifyError::StackUnderflow { pc, mnemonic: mnemonic(), depth, pops });
        }
        let handler = self.flow.handler(pc);
        if handler != NONE {
            self.failure_edge(pc, at, handler, depth - pops)?;
        }

        // The values taken, from the top down, checked against what the
        // instruction wants; `Like` is checked once the value below is seen.
        let mut below = state.stack;
        let mut above: Option<ValueType> = None;
        let mut element: Option<ValueType> = None;
        for k in (0..pops).rev() {
            let found = self.flow.types.top(below);
            below = self.flow.types.pop(below);
            if let Some(right) = above.take().filter(|&right| right != found) {
                return Err(VerifyError::NotAlike { pc, mnemonic: mnemonic(), left: found, right });
            }
            let arg = takes.get(k);
            match arg.want {
                Want::Like => above = Some(found),
                Want::Element => element = Some(found),
                Want::SlotType => self.stored(pc, instr, found)?,
                want if !want.accepts(found) => {
                    return Err(VerifyError::WrongType {
                        pc,
                        mnemonic: mnemonic(),
                        what: arg.what,
                        expected: want,
                        found,
                    });
                }
                Want::AnswerRecord => {
                    let index = match instr {
                        Instr::Member { index } | Instr::HasMember { index } => index,
                        _ => u32::MAX,
                    };
                    member(self.m, pc, mnemonic(), arg.what, found, index)?;
                }
                Want::AnswerList => {
                    let items = self.list_items(pc, mnemonic(), arg.what, found)?;
                    if let Some(needle) = element.take().filter(|&needle| needle != items) {
                        return Err(VerifyError::NotAlike {
                            pc,
                            mnemonic: mnemonic(),
                            left: items,
                            right: needle,
                        });
                    }
                }
                // Inside a RUN a list becomes one word per element: only a
                // list of plain values can.
                Want::Printable if matches!(instr, Instr::InterpShell { .. }) => {
                    if let ValueType::Answer(_) = found {
                        self.list_items(pc, mnemonic(), arg.what, found)?;
                    }
                }
                _ => {}
            }
        }
        self.flow.work += u64::from(pops);
        let given = gives(self.m, pc, instr, || self.flow.types.top(state.stack))?;
        let stack = match given {
            None => below,
            Some(ty) => {
                if depth - pops + 1 > self.m.max_stack {
                    let depth = u64::from(depth - pops) + 1;
                    return Err(VerifyError::StackOverflow {
                        pc,
                        mnemonic: mnemonic(),
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
            Instr::StepExit { step } => {
                if steps == EMPTY {
                    return Err(VerifyError::StepExitUnopened { pc, step });
                }
                let open = self.flow.open.top(steps);
                if open != step {
                    return Err(VerifyError::StepExitOther { pc, step, open });
                }
                steps = self.flow.open.pop(steps);
            }
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
                self.all_steps_closed(pc, mnemonic(), steps)
            }
            Instr::Return {} => {
                if state.unit == 0 {
                    return Err(VerifyError::ReturnInMain { pc });
                }
                let left = self.flow.types.depth(stack);
                if left != 0 {
                    return Err(VerifyError::ReturnDepth { pc, depth: left });
                }
                self.all_steps_closed(pc, mnemonic(), steps)
            }
            // A failure goes to a handler (the failure edge) or ends the run.
            Instr::Fail { .. } => Ok(()),
            _ => self.next(pc, after),
        }
    }

    /// The stack type of the elements of `found`, which must be a typed list
    /// of plain values (strings, integers, booleans, enum literals).
    fn list_items(
        &self,
        pc: u32,
        mnemonic: &'static str,
        what: &'static str,
        found: ValueType,
    ) -> Result<ValueType> {
        let ValueType::Answer(shape) = found else {
            return Err(VerifyError::WrongType { pc, mnemonic, what, expected: Want::AnswerList, found });
        };
        let expected = "a list of plain values";
        match self.m.shapes[shape as usize] {
            Shape::List(items) => match self.m.shapes[items as usize].value_type(items) {
                ValueType::Answer(_) => Err(VerifyError::WrongShape { pc, mnemonic, what, expected, shape }),
                ty => Ok(ty),
            },
            _ => Err(VerifyError::WrongShape { pc, mnemonic, what, expected, shape }),
        }
    }

    /// STORE's value must be of its variable's declared type.
    fn stored(&self, pc: u32, instr: Instr, found: ValueType) -> Result {
        let Instr::Store { slot } = instr else { return Ok(()) };
        let declared = self.m.slots[slot as usize];
        if declared.ty == found {
            return Ok(());
        }
        let name = self.m.string(declared.name).unwrap_or("?").to_string();
        Err(VerifyError::StoreType { pc, slot, name, declared: declared.ty, found })
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
        let inner = self.flow.falls_inside(pc + 1);
        self.fall = Some(At::new(after.unit, after.stack, after.steps, pc, false, inner));
        Ok(())
    }

    /// Control goes from `pc` to `target` with `after`.
    fn edge(&mut self, pc: u32, target: u32, after: State) -> Result {
        let handler = self.flow.handler(pc);
        let inner = handler != NONE && self.flow.handler(target) == handler;
        self.reach(target, pc, after, Some(pc), inner)
    }

    /// A failure at `pc` (in the range of `handler`): its handler's target
    /// is reached with the stack and the open steps cut back. `left` is the
    /// stack after the values the instruction takes (a failure may come
    /// after taking them).
    fn failure_edge(&mut self, pc: u32, at: At, handler: u32, left: u32) -> Result {
        let h = self.m.handlers[handler as usize];
        let handler = handler as usize;
        if left < h.stack_depth {
            return Err(VerifyError::HandlerStack { handler, pc, holds: left, stack_depth: h.stack_depth });
        }
        let open = self.flow.open.depth(at.steps);
        if open < h.step_depth {
            return Err(VerifyError::HandlerSteps { handler, pc, open, step_depth: h.step_depth });
        }
        // Every way in comes from the range: the predecessors brought the
        // same state to the target.
        if at.inner() {
            return Ok(());
        }
        let stack = self.flow.types.cut(at.stack, h.stack_depth, &mut self.flow.work);
        let steps = self.flow.open.cut(at.steps, h.step_depth, &mut self.flow.work);
        // The target's dominator is above this pc's; one inside the range
        // already counted (and walking up from deep inside a long range to
        // its start, pc after pc, would cost the range's length each time).
        let dom = at.idom();
        let counted = dom != ROOT && self.flow.handler(dom) as usize == handler;
        let state = State { unit: at.unit, stack, steps };
        self.reach(h.target, pc, state, (!counted).then_some(dom), false)?;
        if let Some(mut way) = self.ahead.get(h.target) {
            way.at.dom |= At::JOIN;
            self.ahead.set(pc, h.target, way);
        }
        Ok(())
    }

    /// `target` is reached from `from` with `state`. `dom`: the dominator
    /// this way in brings (`None`: one already counted); `inner`: whether
    /// it comes from inside the target's handler range.
    fn reach(&mut self, target: u32, from: u32, state: State, dom: Option<u32>, inner: bool) -> Result {
        let Some(way) = self.ahead.get(target) else {
            // The first way into a handler's target always brings its
            // dominator: no pc of the range came before.
            let idom = dom.unwrap_or(ROOT);
            let at = At::new(state.unit, state.stack, state.steps, idom, false, inner);
            self.ahead.set(from, target, Way { at, last: None });
            return Ok(());
        };
        let (at, last) = self.join(target, from, way, state, dom, inner)?;
        self.ahead.set(from, target, Way { at, last });
        Ok(())
    }

    /// Falling through from `pc - 1` meets the ways into `pc` that jumped.
    fn meet(&mut self, pc: u32, way: Way, fall: At) -> Result<At> {
        let state = State { unit: fall.unit, stack: fall.stack, steps: fall.steps };
        Ok(self.join(pc, pc - 1, way, state, Some(pc - 1), fall.inner())?.0)
    }

    /// The state at `target` once a way in from `from` with `state` meets
    /// the ways in so far (see [`Interpreter::reach`]), and the dominator
    /// this way brought.
    fn join(
        &mut self,
        target: u32,
        from: u32,
        way: Way,
        state: State,
        dom: Option<u32>,
        inner: bool,
    ) -> Result<(At, Option<u32>)> {
        let flow = &mut self.flow;
        let at = way.at;
        if at.unit != state.unit {
            let first = flow.units[at.unit as usize].name();
            let second = flow.units[state.unit as usize].name();
            return Err(VerifyError::SharedCode { pc: target, first, second });
        }
        if !flow.types.same(at.stack, state.stack, &mut flow.work) {
            let this = flow.types.to_vec(at.stack);
            let other = flow.types.to_vec(state.stack);
            return Err(VerifyError::StackMismatch { pc: target, from, this, other });
        }
        if !flow.open.same(at.steps, state.steps, &mut flow.work) {
            let this = flow.open.to_vec(at.steps);
            let other = flow.open.to_vec(state.steps);
            return Err(VerifyError::StepsMismatch { pc: target, from, this, other });
        }
        let (idom, last) = match dom {
            Some(dom) => (lca(&flow.blocks, at.idom(), dom, way.last, &mut flow.work), Some(dom)),
            None => (at.idom(), way.last),
        };
        Ok((At::new(at.unit, at.stack, at.steps, idom, true, at.inner() && inner), last))
    }
}

/// The type of the value `instr` at `pc` pushes, if it pushes one; `top`
/// gives the value on top before it (the record FIELD and MEMBER read).
pub(crate) fn gives(
    m: &Module,
    pc: u32,
    instr: Instr,
    top: impl FnOnce() -> ValueType,
) -> Result<Option<ValueType>> {
    Ok(match instr.gives() {
        Gives::Nothing => None,
        Gives::Value(ty) => Some(ty),
        Gives::Constant(index) => Some(match m.constants[index as usize] {
            Constant::Str(_) => ValueType::Str,
            Constant::Int(_) => ValueType::Int,
            Constant::Duration(_) => ValueType::Duration,
            Constant::Bool(_) => ValueType::Bool,
        }),
        Gives::Slot(slot) => Some(m.slots[slot as usize].ty),
        // FIELD takes one value: the record on top.
        Gives::Member(index) => {
            let field = member(m, pc, instr.mnemonic(), "the typed record", top(), index)?;
            Some(m.shapes[field as usize].value_type(field))
        }
        Gives::Field(field) => {
            let record = top();
            match Field::from_u8(field).and_then(|f| record.field(f)) {
                Some(ty) => Some(ty),
                None => return Err(VerifyError::NoSuchField { pc, field, record }),
            }
        }
    })
}

/// The shape of field `index` of `found`, which must be a typed record that has it.
fn member(
    m: &Module,
    pc: u32,
    mnemonic: &'static str,
    what: &'static str,
    found: ValueType,
    index: u32,
) -> Result<u32> {
    let ValueType::Answer(shape) = found else {
        return Err(VerifyError::WrongType { pc, mnemonic, what, expected: Want::AnswerRecord, found });
    };
    match &m.shapes[shape as usize] {
        Shape::Record(fields) => match fields.get(index as usize) {
            Some(field) => Ok(field.shape),
            None => Err(VerifyError::NoSuchMember { pc, mnemonic, index, shape }),
        },
        _ => Err(VerifyError::WrongShape { pc, mnemonic, what, expected: "a record", shape }),
    }
}

#[cfg(test)]
mod tests {
    /// One per instruction: its size is most of the verifier's memory on a
    /// large module (and of the facts a run keeps for its snapshots).
    #[test]
    fn the_state_at_a_pc_stays_small() {
        assert_eq!(std::mem::size_of::<super::At>(), 16);
    }

    /// The flags share the dominator's word: each reads back alone, with
    /// the largest pc and with `ROOT`.
    #[test]
    fn a_pc_s_dominator_and_flags_read_back() {
        use super::{At, ROOT};
        for idom in [0, 1, ROOT - 1, ROOT] {
            for (join, inner) in [(false, false), (true, false), (false, true), (true, true)] {
                let at = At::new(7, 8, 9, idom, join, inner);
                assert_eq!((at.idom(), at.join(), at.inner()), (idom, join, inner));
                assert_eq!((at.unit, at.stack, at.steps), (7, 8, 9));
            }
        }
    }
}
