//! The default static cost model (SPEC §4), defined once for both sides.
//!
//! The compiler applies it while emitting code (the bounds stored in the
//! module: `Module.bound`, `StepInfo.bound`, `TaskInfo.bound`, ESTIMATE_COST
//! records); `tissvm estimate` applies it to the bytecode, where a cost-model
//! file and run history may replace the execution time of a RUN. With the
//! default model both give identical bounds — a test holds them to that.
//!
//! - Every instruction costs one `INSTRUCTIONS`; RUN one `RUN_COUNT`, PROMPT
//!   one `API_CALLS` (exact counts).
//! - A RUN takes `[0, TIMEOUT]`, or `[0, DEFAULT_RUN_MAX_MS]` without one.
//! - A prompt costs `ceil(chars / 4) + 16 + 1000 × context variables` tokens
//!   of prompt, plus up to `DEFAULT_MAX_TOKENS` of completion. `chars` counts
//!   the query as the manifest records it: a literal's text, or an
//!   interpolated query's source text (with its `${...}`). The context
//!   variables are those named by `WITH`, or without `WITH` every variable
//!   bound by a READ that is not inside ESTIMATE_COST, plus `LAST_RUN`.
//! - Paths merge by [`CostBound::either`]; a TRY's handler is entered with
//!   [`handler_entry`].

use crate::cost::Dim;
use crate::isa::{CostClass, Instr};
use crate::module::CostBound;

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

/// The counts an instruction adds: one `INSTRUCTIONS`, and one `RUN_COUNT`
/// (RUN) or `API_CALLS` (PROMPT). Time and tokens are added separately.
pub fn add_instruction(acc: &mut CostBound, instr: &Instr) {
    acc.add(Dim::Instructions, 1);
    match instr.cost_class() {
        CostClass::Plain => {}
        CostClass::Run => acc.add(Dim::RunCount, 1),
        CostClass::Prompt => acc.add(Dim::ApiCalls, 1),
    }
}

/// The default `[min, max]` execution time of a RUN, in milliseconds: up to
/// its TIMEOUT, or up to [`DEFAULT_RUN_MAX_MS`].
pub fn default_run_time(timeout_ms: Option<u64>) -> (u64, u64) {
    (0, timeout_ms.unwrap_or(DEFAULT_RUN_MAX_MS))
}

/// A prompt's `[min, max]` tokens: the estimated prompt (the query's
/// characters / 4, rounded up, plus the template overhead, plus
/// [`DEFAULT_CONTEXT_TOKENS`] per context variable), and up to
/// [`DEFAULT_MAX_TOKENS`] of completion on top for the maximum.
pub fn prompt_tokens(query: &str, context_vars: usize) -> (u64, u64) {
    let chars = query.chars().count() as u64;
    let prompt = chars
        .div_ceil(CHARS_PER_TOKEN)
        .saturating_add(PROMPT_OVERHEAD_TOKENS)
        .saturating_add((context_vars as u64).saturating_mul(DEFAULT_CONTEXT_TOKENS));
    (prompt, prompt.saturating_add(DEFAULT_MAX_TOKENS))
}

/// A prompt whose full text is known (at run time: query and context):
/// `ceil(chars / 4) + 16` tokens of prompt, and up to [`DEFAULT_MAX_TOKENS`]
/// of completion on top for the maximum. The static rule above is this with
/// each context variable's size unknown and assumed.
pub fn prompt_tokens_for_chars(chars: u64) -> (u64, u64) {
    let prompt = chars.div_ceil(CHARS_PER_TOKEN).saturating_add(PROMPT_OVERHEAD_TOKENS);
    (prompt, prompt.saturating_add(DEFAULT_MAX_TOKENS))
}

/// What a TRY's path has spent when its handler starts. A failure can come
/// at any instruction of the protected body: at least what was spent when
/// the TRY started (`entry`), at most what the completed body costs
/// (`completed`, through the body's closing jump).
pub fn handler_entry(entry: &CostBound, completed: &CostBound) -> CostBound {
    CostBound { min: entry.min, max: completed.max }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_tokens_round_up_and_count_context() {
        assert_eq!(prompt_tokens("", 0), (16, 16 + 1024));
        assert_eq!(prompt_tokens("abcde", 0), (2 + 16, 2 + 16 + 1024));
        assert_eq!(prompt_tokens("abcd", 2), (1 + 16 + 2000, 1 + 16 + 2000 + 1024));
        // Characters, not bytes.
        assert_eq!(prompt_tokens("ééééé", 0), prompt_tokens("abcde", 0));
    }

    #[test]
    fn counts_and_times() {
        let mut acc = CostBound::ZERO;
        add_instruction(&mut acc, &Instr::Run { flags: 0 });
        add_instruction(&mut acc, &Instr::Prompt { prompt: 0 });
        add_instruction(&mut acc, &Instr::Halt {});
        assert_eq!(acc.get(Dim::Instructions), (3, 3));
        assert_eq!(acc.get(Dim::RunCount), (1, 1));
        assert_eq!(acc.get(Dim::ApiCalls), (1, 1));
        assert_eq!(default_run_time(None), (0, DEFAULT_RUN_MAX_MS));
        assert_eq!(default_run_time(Some(5)), (0, 5));
    }

    #[test]
    fn handler_entry_spans_the_body() {
        let entry = CostBound { min: [1; 5], max: [2; 5] };
        let completed = CostBound { min: [3; 5], max: [9; 5] };
        assert_eq!(handler_entry(&entry, &completed), CostBound { min: [1; 5], max: [9; 5] });
    }
}
