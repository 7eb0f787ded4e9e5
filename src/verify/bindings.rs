//! Pass 4: definite assignment. Every LOAD reads a variable, and every
//! LAST_RUN a result, that every path to it has bound (book: reference/statements.md), so the
//! machine never meets an empty slot.
//!
//! Bindings only grow along a path, so what is bound before an instruction
//! is what is bound after its immediate dominator, plus what every way in
//! bound since (where paths meet: a join). The pass walks the dominator
//! tree depth first, children in pc order, keeping one bit per variable and
//! a trail of the bits set, so leaving a subtree undoes it (as the
//! compiler's check does over the syntax tree). At a pc, the trail since
//! its dominator's end is what that way in bound since; a join keeps what
//! every way in brings (the first copied, the others filtered by the bits),
//! and a handler's target what every pc where control enters its range
//! brings, with the caught error. Every predecessor of an instruction lies
//! in an earlier child of its dominator, so the ways in are all counted
//! before the instruction is visited.
//!
//! Tasks come first, callees before callers (`calls.rs`), each from an empty
//! state, into a summary: what it reads before binding it (its needs, which
//! each CALL must have bound) and what it binds on every path to its
//! RETURNs (which a CALL binds).

use std::collections::HashMap;

use foldhash::fast::RandomState;

use crate::isa::{Instr, NO_SLOT};
use crate::module::{Module, NONE};

use super::error::{Binding, Result, VerifyError};
use super::flow::{Flow, ROOT, UNSEEN};

/// What the pass learns.
pub(crate) struct Bindings {
    /// Per unit: what it binds on every path from its entry to a RETURN.
    pub binds: Vec<Vec<u32>>,
    /// (pc, slot): a variable bound where paths meet at pc beyond what its
    /// dominator bound, sorted by pc. `LAST_RUN` is slot `slots.len()`.
    pub joined: Vec<(u32, u32)>,
}

pub(crate) fn check(m: &Module, flow: &mut Flow, order: &[u32], limit: u64) -> Result<Bindings> {
    let slots = m.slots.len() + 1;
    let units = flow.units.len();
    let mut walk = Walk {
        m,
        last_run: m.slots.len() as u32,
        bits: vec![0; slots.div_ceil(64)],
        trail: Vec::new(),
        path: Vec::new(),
        entering: 0,
        ways_in: HashMap::default(),
        bare: vec![0; m.code.len().div_ceil(64)],
        needs: vec![Vec::new(); units],
        needed: vec![UNSEEN; slots],
        binds: vec![None; units],
        joined: Vec::new(),
        unit: 0,
    };
    let tree = (!flow.in_order).then(|| Tree::new(flow, m.code.len()));
    for &unit in order {
        walk.unit = unit;
        match &tree {
            None => walk.in_pc_order(flow, limit)?,
            Some(tree) => walk.depth_first(flow, tree, limit)?,
        }
    }
    walk.joined.sort_unstable();
    let binds = walk.binds.into_iter().map(Option::unwrap_or_default).collect();
    Ok(Bindings { binds, joined: walk.joined })
}

/// The dominator tree, for code whose pc order does not walk it depth first
/// (`Flow::in_order`): each pc's children in pc order, in one vector. A
/// unit's entry, and the targets of handlers whose ranges begin at it, hang
/// from the root: the unit's own list, in pc order.
struct Tree {
    roots: Vec<Vec<u32>>,
    /// The children of `pc` are `children[first[pc]..first[pc + 1]]`.
    first: Vec<u32>,
    children: Vec<u32>,
}

impl Tree {
    fn new(flow: &Flow, len: usize) -> Tree {
        let mut roots = vec![Vec::new(); flow.units.len()];
        let mut first = vec![0u32; len + 1];
        // Every reached pc with its unit and dominator, in pc order.
        let reached = || {
            flow.blocks.list().iter().flat_map(|block| {
                (block.start..block.end).map(move |pc| (pc, block.at.unit, block.idom_of(pc)))
            })
        };
        for (pc, unit, idom) in reached() {
            if idom == ROOT {
                roots[unit as usize].push(pc);
            } else {
                first[idom as usize + 1] += 1;
            }
        }
        for pc in 1..=len {
            first[pc] += first[pc - 1];
        }
        let mut fill = first.clone();
        let mut children = vec![0u32; first[len] as usize];
        for (pc, _, idom) in reached() {
            if idom != ROOT {
                children[fill[idom as usize] as usize] = pc;
                fill[idom as usize] += 1;
            }
        }
        Tree { roots, first, children }
    }
}

/// Whether paths meet at reached `pc`, and whether every way in comes from
/// inside its handler's range.
fn way_into(flow: &Flow, pc: u32) -> (bool, bool) {
    match flow.blocks.starting_at(pc) {
        Some(block) => (block.at.join(), block.at.inner()),
        None => (false, flow.falls_inside(pc)),
    }
}

/// Consecutive pcs of the path, each the dominator of the next, before each
/// of which the trail was `mark` long.
#[derive(Clone, Copy)]
struct Run {
    first: u32,
    last: u32,
    mark: u32,
}

/// The first run of `path` (whose runs' pcs grow) that ends at or after
/// `pc`, or `path.len()`. Searched from the end, doubling the step: a join's
/// dominator is nearly always a few runs up, while the path holds a run for
/// every binding and join since the unit's entry, thousands in a long plan
/// (a binary search of the whole path was two thirds of [`Walk::way_in`]).
fn first_ending_at_or_after(path: &[Run], pc: u32) -> usize {
    // `path[hi..]` end at or after `pc`; `path[..lo]` before it.
    let (mut lo, mut hi, mut step) = (0, path.len(), 1);
    while hi > 0 {
        let probe = hi.saturating_sub(step);
        if path[probe].last < pc {
            lo = probe + 1;
            break;
        }
        hi = probe;
        step *= 2;
    }
    lo + path[lo..hi].partition_point(|run| run.last < pc)
}

struct Walk<'a> {
    m: &'a Module,
    /// The bit standing for `LAST_RUN` (after the variables).
    last_run: u32,
    bits: Vec<u64>,
    /// The bits set, in order, so a subtree is undone by popping.
    trail: Vec<u32>,
    /// The path from the unit's entry down the dominator tree to the pc
    /// being entered, as runs: where each pc's dominator is the one before
    /// it and the trail is as long before each, one entry (the walk in pc
    /// order goes down straight-line code one pc at a time, so the path is
    /// about as long as the code; a run of it binding nothing is one entry).
    path: Vec<Run>,
    /// The trail's length before the pc being entered.
    entering: u32,
    /// Per join: what every way in so far brought beyond its dominator
    /// (foldhash, randomly seeded: see `flow::Interpreter::last_way_in`).
    ways_in: HashMap<u32, Vec<u32>, RandomState>,
    /// One bit per pc: a way in that bound nothing since the join's
    /// dominator has been met, so the join keeps nothing. Most ways in are
    /// such (a condition binds nothing): a bit each, where an entry in
    /// `ways_in` was a hash, an insertion and a removal.
    bare: Vec<u64>,
    /// Per unit: what it reads before binding (its callers must bind it).
    needs: Vec<Vec<u32>>,
    /// `needed[slot] == unit` once the unit needs the slot.
    needed: Vec<u32>,
    /// Per unit: what every RETURN so far has bound.
    binds: Vec<Option<Vec<u32>>>,
    joined: Vec<(u32, u32)>,
    /// The unit being walked.
    unit: u32,
}

impl Walk<'_> {
    /// Walks the unit's dominator tree in pc order, keeping the path to
    /// the current pc (`Flow::in_order` says its dominator is on it).
    fn in_pc_order(&mut self, flow: &mut Flow, limit: u64) -> Result {
        let (first, last) = flow.span[self.unit as usize];
        for b in flow.blocks.within(first, last) {
            let block = flow.blocks.list()[b];
            if block.at.unit != self.unit {
                continue;
            }
            for pc in block.start..block.end {
                let idom = block.idom_of(pc);
                let (join, inner) = match pc == block.start {
                    true => (block.at.join(), block.at.inner()),
                    false => (false, flow.falls_inside(pc)),
                };
                // Back up the path to the dominator: its bindings stay.
                while let Some(run) = self.path.last_mut() {
                    if run.first <= idom && idom <= run.last {
                        if idom < run.last {
                            // The pcs after it in the run bound nothing.
                            let mark = run.mark;
                            run.last = idom;
                            self.undo(mark as usize);
                        }
                        break;
                    }
                    let mark = run.mark;
                    self.path.pop();
                    self.undo(mark as usize);
                }
                // Paths meet only where a block starts: not inside this one.
                let ends = pc + 1 == block.end;
                let mark = self.enter(flow, pc, join, inner, ends)?;
                match self.path.last_mut() {
                    Some(run) if run.last + 1 == pc && run.last == idom && run.mark == mark => run.last = pc,
                    _ => self.path.push(Run { first: pc, last: pc, mark }),
                }
                if flow.work > limit {
                    return Err(VerifyError::TooComplex { work: flow.work, limit });
                }
            }
        }
        if let Some(run) = self.path.first() {
            self.undo(run.mark as usize);
        }
        self.path.clear();
        Ok(())
    }

    /// Walks the unit's dominator tree depth first, children in pc order.
    fn depth_first(&mut self, flow: &mut Flow, tree: &Tree, limit: u64) -> Result {
        // Per pc on the path: its next child to visit.
        let mut next: Vec<u32> = Vec::new();
        for &root in &tree.roots[self.unit as usize] {
            let (join, inner) = way_into(flow, root);
            let mark = self.enter(flow, root, join, inner, true)?;
            self.path.push(Run { first: root, last: root, mark });
            next.push(tree.first[root as usize]);
            while let (Some(&run), Some(child)) = (self.path.last(), next.last_mut()) {
                let pc = run.last;
                if *child < tree.first[pc as usize + 1] {
                    let child_pc = tree.children[*child as usize];
                    *child += 1;
                    let (join, inner) = way_into(flow, child_pc);
                    let mark = self.enter(flow, child_pc, join, inner, true)?;
                    self.path.push(Run { first: child_pc, last: child_pc, mark });
                    next.push(tree.first[child_pc as usize]);
                } else {
                    self.undo(run.mark as usize);
                    self.path.pop();
                    next.pop();
                }
                if flow.work > limit {
                    return Err(VerifyError::TooComplex { work: flow.work, limit });
                }
            }
        }
        Ok(())
    }

    /// The trail's length after `dom`'s bindings: `dom` dominates the pc
    /// being entered, so it is that pc (its bindings done), or on the path.
    fn after(&self, dom: u32) -> usize {
        if dom == ROOT {
            return 0;
        }
        // Down the path pcs only grow (control only goes forward).
        let i = first_ending_at_or_after(&self.path, dom);
        let after = match self.path.get(i) {
            // Its run's next pc came with the trail as long.
            Some(run) if run.first <= dom && dom < run.last => run.mark,
            // The next pc down the path (or the one entered) came after it.
            Some(run) if run.first <= dom => self.path.get(i + 1).map_or(self.entering, |next| next.mark),
            _ => return self.trail.len(),
        };
        after as usize
    }

    fn is_set(&self, slot: u32) -> bool {
        self.bits[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// Binds `slot`; returns whether it was not bound yet.
    fn set(&mut self, slot: u32) -> bool {
        if self.is_set(slot) {
            return false;
        }
        self.bits[slot as usize / 64] |= 1 << (slot % 64);
        self.trail.push(slot);
        true
    }

    fn undo(&mut self, mark: usize) {
        for slot in self.trail.drain(mark..) {
            self.bits[slot as usize / 64] &= !(1 << (slot % 64));
        }
    }

    /// Visits `pc` on the way down the tree; returns the trail's length
    /// before it, to undo it on the way back.
    /// `join`: whether paths meet there; `inner`: whether every way in
    /// comes from inside its handler's range; `ends`: whether the pc after
    /// may start a block (`false`: falling through to it is no join).
    fn enter(&mut self, flow: &mut Flow, pc: u32, join: bool, inner: bool, ends: bool) -> Result<u32> {
        let i = pc as usize;
        let mark = self.trail.len() as u32;
        self.entering = mark;
        if join && self.bare[i / 64] & (1 << (pc % 64)) != 0 {
            self.bare[i / 64] &= !(1 << (pc % 64));
        } else if join && let Some(common) = self.ways_in.remove(&pc) {
            for slot in common {
                if self.set(slot) {
                    self.joined.push((pc, slot));
                }
            }
        }
        let instr = self.m.code[i];
        // Reads.
        match instr {
            Instr::Load { slot } => self.read(pc, slot, None)?,
            Instr::LastRun {} => self.read(pc, self.last_run, None)?,
            Instr::Call { task } => {
                let callee = flow.task_unit[task as usize] as usize;
                for k in 0..self.needs[callee].len() {
                    let slot = self.needs[callee][k];
                    self.read(pc, slot, Some(task))?;
                }
                flow.work += self.needs[callee].len() as u64;
            }
            _ => {}
        }
        // A failure here brings what is bound before the instruction, and the caught error.
        let handler = flow.handler(pc);
        if handler != NONE && !inner {
            let h = self.m.handlers[handler as usize];
            let caught = h.catch_slot != NONE && self.set(h.catch_slot);
            self.way_in(flow, h.target);
            if caught {
                self.undo(self.trail.len() - 1);
            }
        }
        // Bindings.
        match instr {
            Instr::Store { slot } | Instr::Read { slot } => {
                self.set(slot);
            }
            Instr::Review { slot } if slot != NO_SLOT => {
                self.set(slot);
            }
            Instr::Prompt { prompt } => {
                let into = self.m.prompts[prompt as usize].into;
                if into != NONE {
                    self.set(into);
                }
            }
            Instr::Run { .. } => {
                self.set(self.last_run);
            }
            Instr::Call { task } => {
                let callee = flow.task_unit[task as usize] as usize;
                let binds = self.binds[callee].take().unwrap_or_default();
                for &slot in &binds {
                    self.set(slot);
                }
                flow.work += binds.len() as u64;
                self.binds[callee] = Some(binds);
            }
            Instr::Return {} => {
                let unit = self.unit as usize;
                let bound = match self.binds[unit].take() {
                    None => self.trail.clone(),
                    Some(mut so_far) => {
                        so_far.retain(|&slot| self.is_set(slot));
                        so_far
                    }
                };
                flow.work += bound.len() as u64;
                self.binds[unit] = Some(bound);
            }
            _ => {}
        }
        // What this pc brings to the joins it leads to.
        match instr {
            Instr::Jump { target } => self.way_in(flow, target),
            Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                self.way_in(flow, target);
                if ends {
                    self.way_in(flow, pc + 1);
                }
            }
            Instr::Choose { choice } => {
                let m = self.m;
                for option in &m.choices[choice as usize].options {
                    self.way_in(flow, option.target);
                }
            }
            Instr::Halt {} | Instr::Return {} | Instr::Fail { .. } => {}
            _ if ends => self.way_in(flow, pc + 1),
            _ => {}
        }
        Ok(mark)
    }

    /// A read of `slot` at `pc` (`task`: needed by the task a CALL calls).
    /// In a task, a slot not bound yet is needed from its callers.
    fn read(&mut self, pc: u32, slot: u32, task: Option<u32>) -> Result {
        if self.is_set(slot) {
            return Ok(());
        }
        if self.unit == 0 {
            let binding = if slot == self.last_run {
                Binding::LastRun
            } else {
                let name = self.m.string(self.m.slots[slot as usize].name).unwrap_or("?").to_string();
                Binding::Slot { slot, name }
            };
            let mnemonic = self.m.code[pc as usize].mnemonic();
            return Err(VerifyError::Unbound { pc, mnemonic, binding, through_task: task });
        }
        if self.needed[slot as usize] != self.unit {
            self.needed[slot as usize] = self.unit;
            self.needs[self.unit as usize].push(slot);
        }
        // Its callers bound it: later reads need nothing more.
        self.set(slot);
        Ok(())
    }

    /// The way from the current pc into `target`, if paths meet there:
    /// what was bound since the target's dominator ended.
    fn way_in(&mut self, flow: &mut Flow, target: u32) {
        // Paths meet only where a block starts.
        let Some(block) = flow.blocks.starting_at(target) else { return };
        if !block.at.join() {
            return;
        }
        let (word, bit) = (target as usize / 64, 1 << (target % 64));
        if self.bare[word] & bit != 0 {
            return;
        }
        let since = self.after(block.at.idom());
        if since == self.trail.len() {
            self.bare[word] |= bit;
            if !self.ways_in.is_empty() {
                self.ways_in.remove(&target);
            }
            return;
        }
        match self.ways_in.get_mut(&target) {
            None => {
                flow.work += (self.trail.len() - since) as u64;
                self.ways_in.insert(target, self.trail[since..].to_vec());
            }
            Some(common) => {
                flow.work += common.len() as u64;
                let bits = &self.bits;
                common.retain(|&slot| bits[slot as usize / 64] & (1 << (slot % 64)) != 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Run, first_ending_at_or_after};

    /// The search from the end finds what a binary search of the whole path
    /// finds, for every pc before, inside, between and after the runs, on
    /// paths of every length up to a few doublings.
    #[test]
    fn the_search_from_the_end_agrees_with_a_binary_search() {
        for len in 0..40u32 {
            // Runs of one to three pcs with gaps between them.
            let path: Vec<Run> =
                (0..len).map(|i| Run { first: i * 5, last: i * 5 + i % 3, mark: i }).collect();
            for pc in 0..len * 5 + 3 {
                let expected = path.partition_point(|run| run.last < pc);
                assert_eq!(first_ending_at_or_after(&path, pc), expected, "{len} runs, pc {pc}");
            }
        }
    }
}
