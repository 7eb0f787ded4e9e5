//! The static cost model, as lowering applies it to a path's bound.
//!
//! The rules and constants live in `tisslang::analysis::cost_model`, shared with
//! `tissvm estimate`, which applies the same model to the bytecode: a test
//! holds the two to identical bounds. This file only adapts them to `acc`.

use tisslang::analysis::cost_model;
use tisslang::cost::Dim;
use tisslang::cost::bound::CostBound;
use tisslang::isa::Instr;

#[cfg(test)]
pub use tisslang::analysis::cost_model::DEFAULT_RUN_MAX_MS;

/// Every instruction costs one `INSTRUCTIONS`; RUN and PROMPT also count.
pub fn add_instruction(acc: &mut CostBound, instr: &Instr) {
    cost_model::add_instruction(acc, instr);
}

/// A RUN's execution time: up to its TIMEOUT, or the default maximum.
pub fn add_run_time(acc: &mut CostBound, timeout_ms: Option<u64>) {
    let (min, max) = cost_model::default_run_time(timeout_ms);
    acc.add_range(Dim::ExecutionTime, min, max);
}

/// A prompt's tokens (`query` as the manifest records it).
/// A typed prompt (`typed`) may also send its one repair request.
pub fn add_prompt_tokens(acc: &mut CostBound, query: &str, context_vars: usize, typed: bool) {
    let (min, max) = cost_model::prompt_tokens(query, context_vars);
    acc.add_range(Dim::TokenCount, min, max);
    if typed {
        cost_model::add_repair(acc, max);
    }
}

/// The bound of a TRY: the completed body, or a failure anywhere in it
/// followed by the handler.
pub fn try_bound(entry: &CostBound, completed: &CostBound, handler: &CostBound) -> CostBound {
    let failed = cost_model::handler_entry(entry, completed).then(handler);
    completed.either(&failed)
}
