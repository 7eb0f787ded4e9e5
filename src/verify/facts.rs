//! What the verifier knows at each instruction: the state every path brings
//! there. A snapshot's machine state is checked against it before the run
//! resumes (`vm/src/session/snapshot/state.rs`), so a resumed machine is in a
//! state the code can continue from, as a fresh run would be. The state is
//! kept where each block of code starts (`blocks.rs`) and carried down the
//! block to the pc asked about.

use crate::isa::{Instr, NO_SLOT};
use crate::module::{Module, NONE};
use crate::types::ValueType;

use super::bindings::Bindings;
use super::blocks::Blocks;
use super::error::Unit;
use super::flow::{Flow, ROOT, UnitInfo, gives};
use super::forest::{Forest, TypeForest};

/// The verifier's facts about a module (see [`Facts::at`]).
#[derive(Debug)]
pub struct Facts {
    units: Vec<UnitInfo>,
    task_unit: Vec<u32>,
    blocks: Blocks,
    types: TypeForest,
    open: Forest<u32>,
    joined: Vec<(u32, u32)>,
    binds: Vec<Vec<u32>>,
    work: u64,
}

/// The state every path brings to one instruction, before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcFacts {
    /// The code unit the instruction belongs to.
    pub unit: Unit,
    /// The operand stack's types, bottom first.
    pub stack: Vec<ValueType>,
    /// The steps open in the unit, outermost first.
    pub steps: Vec<u32>,
    /// The variables every path from the unit's entry has bound, in slot
    /// order. (Within a task: besides those its callers must bind first.)
    pub bound: Vec<u32>,
    /// Whether every path from the unit's entry has run a command.
    pub last_run: bool,
}

impl Facts {
    pub(super) fn new(flow: Flow, bindings: Bindings) -> Facts {
        Facts {
            work: flow.work,
            units: flow.units,
            task_unit: flow.task_unit,
            blocks: flow.blocks,
            types: flow.types,
            open: flow.open,
            joined: bindings.joined,
            binds: bindings.binds,
        }
    }

    /// The state before instruction `pc` of `module` (the module these facts
    /// are about), or `None` if no path reaches it. Walks up the dominator
    /// tree, and down the pc's block from its start: linear in the unit's
    /// length at most.
    pub fn at(&self, module: &Module, pc: u32) -> Option<PcFacts> {
        let block = self.blocks.of(pc)?;
        let at = block.at;
        let last_run = module.slots.len() as u32;
        let mut bound = Vec::new();
        self.joined_at(pc, &mut bound);
        let mut above = self.blocks.idom(pc);
        while above != ROOT {
            self.joined_at(above, &mut bound);
            self.binds_of(module, module.code[above as usize], &mut bound);
            above = self.blocks.idom(above);
        }
        bound.sort_unstable();
        bound.dedup();
        let ran = bound.last() == Some(&last_run);
        if ran {
            bound.pop();
        }
        // What the block's start is reached with, carried down to `pc`.
        let mut stack = self.types.to_vec(at.stack);
        let mut steps = self.open.to_vec(at.steps);
        for before in block.start..pc {
            let instr = module.code[before as usize];
            let top = stack.last().copied();
            stack.truncate(stack.len().saturating_sub(instr.takes().len() as usize));
            // The module verified: what it gives is known.
            if let Ok(Some(ty)) = gives(module, before, instr, || top.unwrap_or(ValueType::Bool)) {
                stack.push(ty);
            }
            match instr {
                Instr::StepEnter { step } => steps.push(step),
                Instr::StepExit { .. } => {
                    steps.pop();
                }
                _ => {}
            }
        }
        Some(PcFacts { unit: self.units[at.unit as usize].name(), stack, steps, bound, last_run: ran })
    }

    /// The steps of analysis the module took where paths meet (see
    /// [`super::WORK_PER_ITEM`]).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// The unit that task `task`'s code belongs to.
    pub fn task_unit(&self, task: u32) -> Option<Unit> {
        let unit = *self.task_unit.get(task as usize)?;
        Some(self.units[unit as usize].name())
    }

    /// The variables bound where paths meet at `pc`.
    fn joined_at(&self, pc: u32, out: &mut Vec<u32>) {
        let start = self.joined.partition_point(|&(at, _)| at < pc);
        out.extend(self.joined[start..].iter().take_while(|&&(at, _)| at == pc).map(|&(_, slot)| slot));
    }

    /// What `instr` binds once it has run (`LAST_RUN` as `slots.len()`).
    fn binds_of(&self, module: &Module, instr: Instr, out: &mut Vec<u32>) {
        match instr {
            Instr::Store { slot } | Instr::Read { slot } => out.push(slot),
            Instr::Review { slot } if slot != NO_SLOT => out.push(slot),
            Instr::Prompt { prompt } => {
                let into = module.prompts[prompt as usize].into;
                if into != NONE {
                    out.push(into);
                }
            }
            Instr::Run { .. } => out.push(module.slots.len() as u32),
            Instr::Call { task } => out.extend(&self.binds[self.task_unit[task as usize] as usize]),
            _ => {}
        }
    }
}
