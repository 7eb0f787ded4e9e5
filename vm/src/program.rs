//! A verified module ready to run: its regexes compiled once, and the facts
//! the machine looks up often precomputed.

use regex::Regex;
use tisslang::isa::Instr;
use tisslang::module::{Module, NONE};

pub struct Program {
    pub module: Module,
    /// The module's content hash (`tisslang::format::content_hash`).
    pub hash: String,
    pub(crate) regexes: Vec<Regex>,
    /// The string constants, shared: PUSH_CONST of a string copies a pointer.
    pub(crate) const_strings: Vec<Option<std::rc::Rc<str>>>,
    /// Steps entered from the main code at depth 0: the plan's top-level
    /// steps (SETUP included), in order. These are the report's steps.
    pub top_level_steps: Vec<u32>,
}

impl Program {
    /// Compiles the regex table. A pattern that does not compile makes the
    /// module invalid (the compiler never emits one).
    pub fn new(module: Module) -> Result<Program, String> {
        let mut regexes = Vec::with_capacity(module.regexes.len());
        for &index in &module.regexes {
            let pattern = module.string(index).unwrap_or("");
            let regex = Regex::new(pattern)
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
        let const_strings = module
            .constants
            .iter()
            .map(|c| match c {
                tisslang::module::Constant::Str(s) => Some(module.string(*s).unwrap_or("").into()),
                _ => None,
            })
            .collect();
        let hash = tisslang::format::content_hash(&module);
        Ok(Program { module, hash, regexes, const_strings, top_level_steps })
    }

    pub fn string(&self, index: u32) -> &str {
        self.module.string(index).unwrap_or("")
    }

    /// The source line of instruction `pc` (0 if unknown).
    pub fn line(&self, pc: u32) -> u32 {
        self.module.position(pc).map_or(0, |(line, _)| line)
    }
}
