//! A verified module ready to run: its regexes compiled once, its code
//! pre-decoded for the dispatch loop, and the facts the machine looks up
//! often precomputed.

use std::cell::OnceCell;
use std::rc::Rc;

use regex::Regex;
use tiss_providers::AnswerFormat;
use tisslang::answer::Shapes;
use tisslang::cost::bound::CostBound;
use tisslang::isa::Instr;
use tisslang::module::{Constant, Module, NONE};

/// An instruction as the dispatch loop runs it: the frequent, effect-free
/// ones with their operands resolved (a constant is its value), everything
/// else left to the bytecode instruction at the same pc. One `Op` per
/// instruction, so the pc, fuel and `Machine::step` are exactly those of the
/// bytecode. Eight bytes: the loop streams through them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Op {
    /// PUSH_CONST of a string: an index into `Program::const_strs`.
    PushStr(u32),
    /// PUSH_CONST of an integer that fits in 32 bits (others are `Other`).
    PushInt(i32),
    /// PUSH_CONST of a duration under 2^32 ms (others are `Other`).
    PushDuration(u32),
    PushBool(bool),
    Pop,
    Load(u32),
    Store(u32),
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    StartsWith,
    EndsWith,
    IsEmpty,
    Not,
    And,
    Or,
    Jump(u32),
    JumpIfFalse(u32),
    JumpIfTrue(u32),
    Assert(u32),
    /// Everything else: run from `module.code` at the same pc.
    Other,
}

const _: () = assert!(std::mem::size_of::<Op>() == 8);

pub struct Program {
    pub module: Module,
    /// The module's content hash, computed when first asked for: it encodes
    /// and hashes the whole module, and a run needs it only to suspend.
    hash: OnceCell<String>,
    pub(crate) regexes: Vec<Regex>,
    /// `module.code`, pre-decoded (built here; the module is not changed after).
    pub(crate) ops: Vec<Op>,
    /// The string constants, shared: PUSH_CONST of a string copies a pointer.
    pub(crate) const_strs: Vec<Rc<str>>,
    /// Steps entered from the main code at depth 0: the plan's top-level
    /// steps (SETUP included), in order. These are the report's steps.
    pub top_level_steps: Vec<u32>,
    /// The module's answer shapes with their names resolved (book: reference/types.md).
    pub shapes: Shapes,
    /// Each prompt's answer format (its schema parsed once), `None` untyped.
    pub(crate) answer_formats: Vec<Option<AnswerFormat>>,
    /// The steps' and tasks' bounds with the run's answer allowance, where
    /// it is not the one compiled in ([`Program::use_bounds`]).
    answered: Option<Answered>,
}

/// Bounds remade with another answer allowance.
#[derive(Debug)]
struct Answered {
    steps: Vec<Option<CostBound>>,
    tasks: Vec<CostBound>,
}

impl Program {
    /// Compiles the regex table. A pattern that does not compile makes the
    /// module invalid (the compiler never emits one).
    pub fn new(module: Module) -> Result<Program, String> {
        let mut regexes = Vec::with_capacity(module.regexes.len());
        for &index in &module.regexes {
            let pattern = module.string(index).unwrap_or("");
            let regex = tiss_support::regex_limits::compile(pattern)
                .map_err(|e| format!("regex {index} (`{pattern}`) does not compile: {e}"))?;
            regexes.push(regex);
        }
        let main_end = module.tasks.iter().map(|t| t.entry).min().unwrap_or(module.code.len() as u32);
        let top_level_steps = module.code[..main_end as usize]
            .iter()
            .filter_map(|i| match i {
                Instr::StepEnter { step } => Some(*step),
                _ => None,
            })
            .filter(|&s| {
                module.steps.get(s as usize).is_some_and(|info| info.depth == 0 && info.parent == NONE)
            })
            .collect();
        let (ops, const_strs) = predecode(&module);
        let shapes = Shapes::resolve(&module.shapes, |n| module.string(n))?;
        let answer_formats = module
            .prompts
            .iter()
            .map(|p| {
                let Some(answer) = p.answer else { return Ok(None) };
                let text = module.string(answer.schema).unwrap_or("");
                let schema =
                    serde_json::from_str(text).map_err(|e| format!("a prompt's schema is not JSON: {e}"))?;
                Ok(Some(AnswerFormat {
                    name: module.string(answer.name).unwrap_or("answer").to_string(),
                    schema,
                }))
            })
            .collect::<Result<_, String>>()?;
        Ok(Program {
            module,
            hash: OnceCell::new(),
            regexes,
            ops,
            const_strs,
            top_level_steps,
            shapes,
            answer_formats,
            answered: None,
        })
    }

    /// The bounds the preflight of steps and tasks uses instead of the
    /// module's: per step (`None`: a step with no code) and per task, remade
    /// with the run's answer allowance (`runner::execute`).
    pub fn use_bounds(&mut self, steps: Vec<Option<CostBound>>, tasks: Vec<CostBound>) {
        self.answered = Some(Answered { steps, tasks });
    }

    /// The module's own bounds again (those of the default allowance).
    pub fn use_module_bounds(&mut self) {
        self.answered = None;
    }

    /// Step `step`'s bound, for its preflight.
    pub(crate) fn step_bound(&self, step: u32) -> Option<&CostBound> {
        match &self.answered {
            Some(answered) => answered.steps.get(step as usize)?.as_ref(),
            None => self.module.steps.get(step as usize).map(|info| &info.bound),
        }
    }

    /// Task `task`'s bound, for its preflight.
    pub(crate) fn task_bound(&self, task: u32) -> Option<&CostBound> {
        match &self.answered {
            Some(answered) => answered.tasks.get(task as usize),
            None => self.module.tasks.get(task as usize).map(|info| &info.bound),
        }
    }

    /// The module's content hash (`tisslang::container::content_hash`).
    pub fn hash(&self) -> &str {
        self.hash.get_or_init(|| tisslang::container::content_hash(&self.module))
    }

    pub fn string(&self, index: u32) -> &str {
        self.module.string(index).unwrap_or("")
    }

    /// The source line of instruction `pc` (0 if unknown).
    pub fn line(&self, pc: u32) -> u32 {
        self.module.position(pc).map_or(0, |(line, _)| line)
    }
}

/// The module's code as `Op`s, and the string constants they push.
fn predecode(module: &Module) -> (Vec<Op>, Vec<Rc<str>>) {
    let mut const_strs = Vec::new();
    // Constant index → its index in `const_strs`.
    let str_index: Vec<Option<u32>> = module
        .constants
        .iter()
        .map(|c| match c {
            Constant::Str(s) => {
                const_strs.push(module.string(*s).unwrap_or("").into());
                Some(const_strs.len() as u32 - 1)
            }
            _ => None,
        })
        .collect();
    let ops = module
        .code
        .iter()
        .map(|&instr| match instr {
            Instr::PushConst { index } => match module.constants.get(index as usize) {
                Some(Constant::Str(_)) => match str_index.get(index as usize) {
                    Some(&Some(i)) => Op::PushStr(i),
                    _ => Op::Other,
                },
                Some(Constant::Int(i)) => i32::try_from(*i).map_or(Op::Other, Op::PushInt),
                Some(Constant::Duration(d)) => u32::try_from(*d).map_or(Op::Other, Op::PushDuration),
                Some(Constant::Bool(b)) => Op::PushBool(*b),
                None => Op::Other,
            },
            Instr::Pop {} => Op::Pop,
            Instr::Load { slot } => Op::Load(slot),
            Instr::Store { slot } => Op::Store(slot),
            Instr::Eq {} => Op::Eq,
            Instr::Ne {} => Op::Ne,
            Instr::Lt {} => Op::Lt,
            Instr::Le {} => Op::Le,
            Instr::Gt {} => Op::Gt,
            Instr::Ge {} => Op::Ge,
            Instr::Contains {} => Op::Contains,
            Instr::StartsWith {} => Op::StartsWith,
            Instr::EndsWith {} => Op::EndsWith,
            Instr::IsEmpty {} => Op::IsEmpty,
            Instr::Not {} => Op::Not,
            Instr::And {} => Op::And,
            Instr::Or {} => Op::Or,
            Instr::Jump { target } => Op::Jump(target),
            Instr::JumpIfFalse { target } => Op::JumpIfFalse(target),
            Instr::JumpIfTrue { target } => Op::JumpIfTrue(target),
            Instr::Assert { assertion } => Op::Assert(assertion),
            _ => Op::Other,
        })
        .collect();
    (ops, const_strs)
}
