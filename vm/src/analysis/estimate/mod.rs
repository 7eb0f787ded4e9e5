//! Static cost bounds computed from the bytecode (book: reference/costs.md; `tissvm estimate`, cli/tissvm.md).
//!
//! The plan's code is a DAG: every jump goes forward, CALLs are acyclic,
//! and a TRY's handler is a static range. [`estimate`] walks each unit of
//! code (the main code, each DEFINE_TASK body: callees first) once, in pc
//! order, carrying the `[min, max]` bound of the paths that reach each pc,
//! and merging where paths meet, exactly as the compiler does while it
//! emits the code (`tisslang::analysis::cost_model` holds the rules both apply):
//!
//! - every instruction adds its counts; RUN its execution time, PROMPT its
//!   tokens, CALL its callee's whole bound; ESTIMATE adds nothing for the
//!   estimated block (its code was never emitted);
//! - JUMP_IF_*, CHOOSE: a successor per branch, merged by min/max where
//!   the branches meet again;
//! - TRY: the handler starts with [`cost_model::handler_entry`] of the
//!   bound at the TRY and the bound of the completed body (through its
//!   closing JUMP): a failure can come anywhere in between;
//! - FAIL (an ASSERT whose message is built only on failure) is counted as
//!   if the path went on past it, as the compiler counts it;
//! - a STEP's bound is taken from its STEP_ENTER to its STEP_EXIT: values
//!   inside a step are kept relative to its entry, and composed with the
//!   bound at the entry when it exits.
//!
//! With the default [`CostModel`] the result is identical to the bounds the
//! compiler stored in the module (`Module.bound`, `StepInfo.bound`,
//! `TaskInfo.bound`). A cost-model file and run history change the
//! execution time of RUNs without a TIMEOUT (see [`CostModel`]).
//!
//! Bytecode the compiler would not emit (a backward jump, a jump out of a
//! step, a recursive CALL, ...) is refused with an [`EstimateError`]: it has
//! no static bound this analysis can vouch for.

use std::collections::{BTreeMap, HashMap};

use tisslang::analysis::cost_model;
use tisslang::cost::Dim;
use tisslang::cost::bound::CostBound;
use tisslang::isa::{Instr, run_flags};
use tisslang::module::{Constant, Module, TemplatePart};

mod model;
mod output;

use model::Shape;
pub use model::{CostModel, TimeSource};

/// One RUN instruction and its execution-time estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEstimate {
    pub pc: u32,
    pub line: u32,
    /// The innermost step around it (a step table index), if any.
    pub step: Option<u32>,
    /// The command as written (as the manifest records it).
    pub command: String,
    /// The command interpolates values known only at run time.
    pub dynamic: bool,
    pub timeout_ms: Option<u64>,
    pub min_ms: u64,
    pub max_ms: u64,
    pub source: TimeSource,
}

/// The static bounds of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Per step table entry: its bound, or `None` for a step with no code
    /// (one inside an ESTIMATE_COST block).
    pub steps: Vec<Option<CostBound>>,
    /// Per task table entry: the bound of its body.
    pub tasks: Vec<CostBound>,
    /// The whole plan.
    pub total: CostBound,
    /// Every RUN instruction, in pc order.
    pub runs: Vec<RunEstimate>,
    /// The main code's steps in code order, with their depth: the report's
    /// top-level steps are those at depth 0.
    pub main_steps: Vec<(u32, u32)>,
}

/// Bytecode this analysis cannot bound (the compiler never emits it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EstimateError {
    pub message: String,
}

impl std::fmt::Display for EstimateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no static bound: {}", self.message)
    }
}

impl std::error::Error for EstimateError {}

fn shape_error(message: String) -> EstimateError {
    EstimateError { message }
}

/// Computes the bounds of a verified module under `model`.
pub fn estimate(module: &Module, model: &CostModel) -> Result<Estimate, EstimateError> {
    let mut a = Analysis::new(module, model);
    a.check_handlers()?;
    for task in a.task_order()? {
        let (start, end) = a.task_units[task];
        let bound = a.unit(start, end, false)?;
        a.task_bounds[task] = Some(bound);
    }
    let total = a.unit(0, a.main_end, true)?;
    let tasks = a.task_bounds.iter().map(|b| b.unwrap_or(CostBound::ZERO)).collect();
    Ok(Estimate { steps: a.step_bounds, tasks, total, runs: a.runs, main_steps: a.main_steps })
}

/// Paths arriving at a pc: their bound, relative to the step frame `frame`.
#[derive(Clone, Copy)]
struct Inflow {
    frame: u32,
    bound: CostBound,
}

/// An open step while walking a unit.
struct Frame {
    step: u32,
    /// The frame the step was entered in.
    outer: u32,
    /// The bound (relative to `outer`) at the STEP_ENTER.
    base: Option<CostBound>,
}

struct Analysis<'m> {
    m: &'m Module,
    main_end: u32,
    /// Per task: its unit of code, `[entry, end)`.
    task_units: Vec<(u32, u32)>,
    task_bounds: Vec<Option<CostBound>>,
    step_bounds: Vec<Option<CostBound>>,
    /// Tokens per prompt table entry.
    prompt_tokens: Vec<(u64, u64)>,
    runs: Vec<RunEstimate>,
    /// Handlers by the pc their range starts at / ends at (`by_start.at(pc)`).
    by_start: Csr,
    by_end: Csr,
    /// Per handler: the bound and frame at its TRY, once reached.
    handler_entry: Vec<Option<(Option<CostBound>, u32)>>,
    next_frame: u32,
    main_steps: Vec<(u32, u32)>,
}

/// Items grouped by pc (a counting sort).
struct Csr {
    first: Vec<u32>,
    items: Vec<u32>,
}

impl Csr {
    fn new(len: usize, keys: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut first = vec![0u32; len + 2];
        for (pc, _) in keys.clone() {
            if let Some(f) = first.get_mut(pc as usize + 1) {
                *f += 1;
            }
        }
        for i in 1..first.len() {
            first[i] += first[i - 1];
        }
        let mut fill = first.clone();
        let mut items = vec![0u32; *first.last().unwrap_or(&0) as usize];
        for (pc, item) in keys {
            if let Some(slot) = fill.get_mut(pc as usize) {
                items[*slot as usize] = item;
                *slot += 1;
            }
        }
        Csr { first, items }
    }

    fn at(&self, pc: u32) -> &[u32] {
        let i = pc as usize;
        match (self.first.get(i), self.first.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl<'m> Analysis<'m> {
    fn new(m: &'m Module, model: &CostModel) -> Analysis<'m> {
        let len = m.code.len() as u32;
        let mut entries: Vec<u32> = m.tasks.iter().map(|t| t.entry).collect();
        entries.sort_unstable();
        entries.dedup();
        let main_end = entries.first().copied().unwrap_or(len);
        let task_units = m
            .tasks
            .iter()
            .map(|t| {
                let next = entries.iter().copied().find(|&e| e > t.entry).unwrap_or(len);
                (t.entry, next)
            })
            .collect();
        let handlers = m.handlers.iter().enumerate();
        let by_start = Csr::new(m.code.len(), handlers.clone().map(|(i, h)| (h.start, i as u32)));
        let by_end = Csr::new(m.code.len(), handlers.map(|(i, h)| (h.end, i as u32)));
        Analysis {
            m,
            main_end,
            task_units,
            task_bounds: vec![None; m.tasks.len()],
            step_bounds: vec![None; m.steps.len()],
            prompt_tokens: prompt_tokens(m, model.completion_tokens()),
            runs: runs(m, model),
            by_start,
            by_end,
            handler_entry: vec![None; m.handlers.len()],
            next_frame: 0,
            main_steps: Vec::new(),
        }
    }

    /// Every TRY as the compiler emits it: its range, closing JUMP (at `end`)
    /// and handler in order (`start <= end < target`), all in one unit.
    fn check_handlers(&self) -> Result<(), EstimateError> {
        let mut bounds: Vec<u32> = self.task_units.iter().map(|u| u.0).collect();
        bounds.push(0);
        bounds.sort_unstable();
        bounds.dedup();
        let unit_of = |pc: u32| bounds.partition_point(|&b| b <= pc);
        for (i, h) in self.m.handlers.iter().enumerate() {
            let (unit, len) = (unit_of(h.start), self.m.code.len() as u32);
            if !(h.start <= h.end && h.end < h.target && h.target < len)
                || unit_of(h.end) != unit
                || unit_of(h.target) != unit
            {
                return Err(shape_error(format!(
                    "handler {i} ({}..{} -> {}) is not a TRY as the compiler emits it",
                    h.start, h.end, h.target
                )));
            }
        }
        Ok(())
    }

    /// Tasks callees first; a recursive CALL is an error.
    fn task_order(&self) -> Result<Vec<usize>, EstimateError> {
        let m = self.m;
        let callees: Vec<Vec<usize>> = self
            .task_units
            .iter()
            .map(|&(start, end)| {
                m.code[start as usize..end as usize]
                    .iter()
                    .filter_map(|i| match i {
                        Instr::Call { task } => Some(*task as usize),
                        _ => None,
                    })
                    .filter(|&t| t < m.tasks.len())
                    .collect()
            })
            .collect();
        let mut state = vec![0u8; m.tasks.len()]; // 0 new, 1 open, 2 done
        let mut order = Vec::with_capacity(m.tasks.len());
        for root in 0..m.tasks.len() {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            let mut stack = vec![(root, 0usize)];
            while let Some(top) = stack.last_mut() {
                let task = top.0;
                if let Some(&callee) = callees[task].get(top.1) {
                    top.1 += 1;
                    match state[callee] {
                        0 => {
                            state[callee] = 1;
                            stack.push((callee, 0));
                        }
                        1 => {
                            let name = m.string(m.tasks[callee].name).unwrap_or("?");
                            return Err(shape_error(format!("the task \"{name}\" calls itself (recursion)")));
                        }
                        _ => {}
                    }
                } else {
                    state[task] = 2;
                    order.push(task);
                    stack.pop();
                }
            }
        }
        Ok(order)
    }

    fn frame(&mut self) -> u32 {
        self.next_frame += 1;
        self.next_frame
    }

    /// The bound of one unit `[start, end)`, entered at `start`: the merge
    /// over every path to a HALT or RETURN.
    fn unit(&mut self, start: u32, end: u32, main: bool) -> Result<CostBound, EstimateError> {
        let m = self.m;
        let mut pending: BTreeMap<u32, Inflow> = BTreeMap::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut frame = self.frame();
        let mut cur = Some(CostBound::ZERO);
        let mut total: Option<CostBound> = None;
        let mut run_cursor = self.runs.partition_point(|r| r.pc < start);
        for pc in start..end {
            let instr = m.code[pc as usize];
            if let Some(entry) = pending.first_entry()
                && *entry.key() == pc
            {
                let inflow = entry.remove();
                if inflow.frame != frame {
                    return Err(shape_error(format!("pc {pc}: a jump crosses a step boundary")));
                }
                cur = merge(cur, Some(inflow.bound));
            }
            for &h in self.by_start.at(pc) {
                self.handler_entry[h as usize] = Some((cur, frame));
            }
            let mut out = cur.map(|c| {
                let mut o = c;
                cost_model::add_instruction(&mut o, &instr);
                o
            });
            match instr {
                Instr::Run { .. } => {
                    let run = self.runs.get_mut(run_cursor).filter(|r| r.pc == pc);
                    let run = run.ok_or_else(|| shape_error(format!("pc {pc}: an unlisted RUN")))?;
                    run.step = frames.last().map(|f| f.step);
                    run_cursor += 1;
                    let (min, max) = (run.min_ms, run.max_ms);
                    if let Some(o) = &mut out {
                        o.add_range(Dim::ExecutionTime, min, max);
                    }
                }
                Instr::Prompt { prompt } => {
                    let (min, max) = self.prompt_tokens.get(prompt as usize).copied().unwrap_or((0, 0));
                    let typed = m.prompts.get(prompt as usize).is_some_and(|p| p.answer.is_some());
                    if let Some(o) = &mut out {
                        o.add_range(Dim::TokenCount, min, max);
                        if typed {
                            cost_model::add_repair(o, max);
                        }
                    }
                }
                Instr::Call { task } => {
                    let callee = self.task_bounds.get(task as usize).copied().flatten();
                    let callee = callee.ok_or_else(|| {
                        shape_error(format!("pc {pc}: CALL of task {task}, which has no bound"))
                    })?;
                    out = out.map(|o| o.then(&callee));
                }
                Instr::StepEnter { step } => {
                    if main {
                        self.main_steps.push((step, frames.len() as u32));
                    }
                    frames.push(Frame { step, outer: frame, base: cur });
                    frame = self.frame();
                    out = cur.map(|_| {
                        let mut o = CostBound::ZERO;
                        cost_model::add_instruction(&mut o, &instr);
                        o
                    });
                }
                Instr::StepExit { step } => {
                    let open = frames.pop().filter(|f| f.step == step);
                    let open = open.ok_or_else(|| {
                        shape_error(format!("pc {pc}: STEP_EXIT of step {step}, which is not the open step"))
                    })?;
                    if let Some(slot) = self.step_bounds.get_mut(step as usize) {
                        *slot = merge(*slot, out);
                    }
                    frame = open.outer;
                    out = match (open.base, out) {
                        (Some(base), Some(o)) => Some(base.then(&o)),
                        _ => None,
                    };
                }
                _ => {}
            }
            for &h in self.by_end.at(pc) {
                let handler = m.handlers[h as usize];
                let Some((entry, at)) = self.handler_entry[h as usize] else {
                    return Err(shape_error(format!("handler {h}: its range ends before it starts")));
                };
                if at != frame || handler.target <= pc || handler.target >= end {
                    return Err(shape_error(format!(
                        "handler {h}: the TRY's range or handler is not in one step of one unit"
                    )));
                }
                match (entry, out) {
                    (Some(entry), Some(completed)) => {
                        let bound = cost_model::handler_entry(&entry, &completed);
                        flow(&mut pending, handler.target, frame, bound);
                    }
                    (None, None) => {} // the whole TRY is unreachable
                    _ => {
                        return Err(shape_error(format!(
                            "handler {h}: its TRY body is not entered at its start and left at its end"
                        )));
                    }
                }
            }
            let mut successor = |target: u32, bound: CostBound| -> Result<(), EstimateError> {
                if target <= pc || target >= end {
                    return Err(shape_error(format!(
                        "pc {pc}: a jump to {target}, which is not forward within its unit"
                    )));
                }
                flow(&mut pending, target, frame, bound);
                Ok(())
            };
            let falls_through = match instr {
                Instr::Jump { target } => {
                    if let Some(o) = out {
                        successor(target, o)?;
                    }
                    false
                }
                Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                    if let Some(o) = out {
                        successor(target, o)?;
                    }
                    true
                }
                Instr::Choose { choice } => {
                    let options = m.choices.get(choice as usize).map_or(&[][..], |c| &c.options[..]);
                    if let Some(o) = out {
                        for option in options {
                            successor(option.target, o)?;
                        }
                    }
                    false
                }
                Instr::Halt {} | Instr::Return {} => {
                    if let Some(mut o) = out {
                        // A path that ends inside open steps: compose their entries.
                        for f in frames.iter().rev() {
                            o = f.base.map_or(o, |b| b.then(&o));
                        }
                        total = merge(total, Some(o));
                    }
                    false
                }
                // A failure with its message built: counted as going on.
                _ => true,
            };
            cur = if falls_through && pc + 1 < end { out } else { None };
        }
        if let Some((&pc, _)) = pending.first_key_value() {
            return Err(shape_error(format!("pc {pc}: a jump target outside its unit")));
        }
        if !frames.is_empty() {
            return Err(shape_error(format!("a step opened in the unit at pc {start} never exits")));
        }
        Ok(total.unwrap_or(CostBound::ZERO))
    }
}

fn merge(a: Option<CostBound>, b: Option<CostBound>) -> Option<CostBound> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.either(&b)),
        (a, None) => a,
        (None, b) => b,
    }
}

fn flow(pending: &mut BTreeMap<u32, Inflow>, target: u32, frame: u32, bound: CostBound) {
    pending
        .entry(target)
        .and_modify(|i| {
            // Different frames are reported when the target is reached.
            if i.frame == frame {
                i.bound = i.bound.either(&bound);
            } else {
                i.frame = u32::MAX;
            }
        })
        .or_insert(Inflow { frame, bound });
}

/// The instruction that pushed the value `depth` places below the top of
/// the stack just before `pc`, in the straight-line code before it.
fn producer(m: &Module, pc: u32, mut depth: u32) -> Option<Instr> {
    let mut i = pc;
    for _ in 0..256 {
        i = i.checked_sub(1)?;
        let instr = *m.code.get(i as usize)?;
        if matches!(
            instr,
            Instr::Jump { .. }
                | Instr::JumpIfFalse { .. }
                | Instr::JumpIfTrue { .. }
                | Instr::Choose { .. }
                | Instr::Call { .. }
                | Instr::Halt {}
                | Instr::Return {}
        ) {
            return None;
        }
        let (pops, pushes) = instr.stack_effect();
        if depth < pushes {
            return Some(instr);
        }
        depth = depth - pushes + pops;
    }
    None
}

/// The string a producer pushes: a constant's text or a template.
fn shape_of(m: &Module, producer: Option<Instr>) -> Shape {
    match producer {
        Some(Instr::PushConst { index }) => match m.constants.get(index as usize) {
            Some(Constant::Str(s)) => m.string(*s).map_or(Shape::Unknown, |t| Shape::Text(t.to_string())),
            _ => Shape::Unknown,
        },
        Some(Instr::Interp { template, .. } | Instr::InterpShell { template, .. }) => {
            Shape::Template(template)
        }
        _ => Shape::Unknown,
    }
}

/// A shape's text, each hole shown as `${...}`.
fn shape_text(m: &Module, shape: &Shape) -> String {
    match shape {
        Shape::Text(t) => t.clone(),
        Shape::Template(t) => m.templates.get(*t as usize).map_or_else(String::new, |t| {
            t.parts
                .iter()
                .map(|p| match p {
                    TemplatePart::Text(s) => m.string(*s).unwrap_or(""),
                    TemplatePart::Hole => "${...}",
                })
                .collect()
        }),
        Shape::Unknown => String::new(),
    }
}

/// Every RUN with its command and execution time, in pc order.
fn runs(m: &Module, model: &CostModel) -> Vec<RunEstimate> {
    // Manifest commands by line: a RUN is matched to the first unused entry
    // on its line of the same kind (and text, for a literal command).
    let mut by_line: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, c) in m.manifest.commands.iter().enumerate() {
        by_line.entry(c.line).or_default().push(i);
    }
    let mut used = vec![false; m.manifest.commands.len()];
    let mut out = Vec::new();
    for (pc, instr) in m.code.iter().enumerate() {
        let Instr::Run { flags } = *instr else { continue };
        let pc = pc as u32;
        let line = m.position(pc).map_or(0, |(line, _)| line);
        let has_timeout = flags & run_flags::TIMEOUT != 0;
        let above = u32::from(flags & run_flags::DIR != 0) + u32::from(has_timeout);
        let shape = shape_of(m, producer(m, pc, above));
        let entry = by_line.get(&line).and_then(|candidates| {
            candidates.iter().copied().find(|&i| {
                let c = &m.manifest.commands[i];
                !used[i]
                    && match &shape {
                        Shape::Text(t) => !c.dynamic && m.string(c.text) == Some(t.as_str()),
                        Shape::Template(_) => c.dynamic,
                        Shape::Unknown => true,
                    }
            })
        });
        if let Some(i) = entry {
            used[i] = true;
        }
        let entry = entry.map(|i| &m.manifest.commands[i]);
        let timeout_ms = if has_timeout {
            match producer(m, pc, 0) {
                Some(Instr::PushConst { index }) => match m.constants.get(index as usize) {
                    Some(Constant::Duration(ms)) => Some(*ms),
                    _ => None,
                },
                _ => None,
            }
            .or(entry.and_then(|c| c.timeout_ms))
        } else {
            None
        };
        let command = match entry {
            Some(c) => m.string(c.text).unwrap_or("").to_string(),
            None => shape_text(m, &shape),
        };
        let dynamic = entry.map_or(!matches!(shape, Shape::Text(_)), |c| c.dynamic);
        let time = model.run_time(timeout_ms, &command, &shape, m);
        out.push(RunEstimate {
            pc,
            line,
            step: None,
            command,
            dynamic,
            timeout_ms,
            min_ms: time.min,
            max_ms: time.max,
            source: time.source,
        });
    }
    out
}

/// Tokens of every prompt table entry (the shared model: the query as the
/// manifest records it, and the context variables).
fn prompt_tokens(m: &Module, completion: u64) -> Vec<(u64, u64)> {
    let mut read_slots: Vec<u32> = m
        .code
        .iter()
        .filter_map(|i| match i {
            Instr::Read { slot } => Some(*slot),
            _ => None,
        })
        .collect();
    read_slots.sort_unstable();
    read_slots.dedup();
    // Prompt table entries used by the code, in table order, are the
    // manifest's prompts in order (ESTIMATE_COST prompts have no code and
    // no manifest entry).
    let mut query_pc: Vec<Option<u32>> = vec![None; m.prompts.len()];
    for (pc, instr) in m.code.iter().enumerate() {
        if let Instr::Prompt { prompt } = instr
            && let Some(slot) = query_pc.get_mut(*prompt as usize)
        {
            slot.get_or_insert(pc as u32);
        }
    }
    let used = query_pc.iter().filter(|p| p.is_some()).count();
    let manifest_matches = used == m.manifest.prompts.len();
    let mut next_manifest = 0;
    m.prompts
        .iter()
        .zip(&query_pc)
        .map(|(info, pc)| {
            let Some(pc) = *pc else { return (0, 0) };
            let query = if manifest_matches {
                let entry = &m.manifest.prompts[next_manifest];
                next_manifest += 1;
                m.string(entry.query).unwrap_or("").to_string()
            } else {
                shape_text(m, &shape_of(m, producer(m, pc, 0)))
            };
            let context = if info.default_context { read_slots.len() + 1 } else { info.context.len() };
            cost_model::prompt_tokens_answered(&query, context, completion)
        })
        .collect()
}
