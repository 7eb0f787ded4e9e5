//! The static cost model: what each instruction adds to a path's bound.
//!
//! Counts (`INSTRUCTIONS`, `RUN_COUNT`, `API_CALLS`) are exact. Time and
//! tokens are estimates from a simple default model, documented here and in
//! the README; the cost issue refines it (cost-model files, history).

use tisslang::cost::Dim;
use tisslang::isa::{CostClass, Instr};
use tisslang::module::CostBound;

/// A RUN without `TIMEOUT` is assumed to take at most this long.
pub const DEFAULT_RUN_MAX_MS: u64 = 10 * 60 * 1000;
/// The completion budget assumed for every prompt (the provider's `max_tokens`).
pub const DEFAULT_MAX_TOKENS: u64 = 1024;
/// Tokens assumed for a context variable whose size is unknown statically.
pub const DEFAULT_CONTEXT_TOKENS: u64 = 1000;
/// Characters per token when estimating a prompt's size.
pub const CHARS_PER_TOKEN: u64 = 4;
/// The prompt template's own overhead, in tokens.
pub const PROMPT_OVERHEAD_TOKENS: u64 = 16;

/// Every instruction costs one `INSTRUCTIONS`; RUN and PROMPT also count.
pub fn add_instruction(acc: &mut CostBound, instr: &Instr) {
    acc.add(Dim::Instructions, 1);
    match instr.cost_class() {
        CostClass::Plain => {}
        CostClass::Run => acc.add(Dim::RunCount, 1),
        CostClass::Prompt => acc.add(Dim::ApiCalls, 1),
    }
}

/// A RUN's execution time: up to its TIMEOUT, or the default maximum.
pub fn add_run_time(acc: &mut CostBound, timeout_ms: Option<u64>) {
    acc.add_range(Dim::ExecutionTime, 0, timeout_ms.unwrap_or(DEFAULT_RUN_MAX_MS));
}

/// A prompt's tokens: the estimated prompt (query characters / 4, plus the
/// template overhead, plus `DEFAULT_CONTEXT_TOKENS` per context variable)
/// and up to `DEFAULT_MAX_TOKENS` of completion.
pub fn add_prompt_tokens(acc: &mut CostBound, query_chars: usize, context_vars: usize) {
    let prompt = (query_chars as u64).div_ceil(CHARS_PER_TOKEN)
        + PROMPT_OVERHEAD_TOKENS
        + context_vars as u64 * DEFAULT_CONTEXT_TOKENS;
    acc.add_range(Dim::TokenCount, prompt, prompt + DEFAULT_MAX_TOKENS);
}
