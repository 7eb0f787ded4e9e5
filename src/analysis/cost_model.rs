//! The default static cost model (book: reference/costs.md), defined once for both sides.
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
//! - A prompt costs at most `ceil(chars / 4) + 16 + 1000 × context variables`
//!   tokens of prompt plus `DEFAULT_MAX_TOKENS` of completion, and at least
//!   only what is certain (book: reference/models.md): the query's literal bytes at one token
//!   per [`MIN_BYTES_PER_TOKEN`], rounded down; interpolations, context
//!   variables, the template and the answer count 0, so preflight never
//!   refuses a prompt that could fit. `chars` counts the query as the
//!   manifest records it: a literal's text, or an interpolated query's
//!   source text (with its `${...}`, which the minimum leaves out). The
//!   context variables are those named by `WITH`, or without `WITH` every
//!   variable bound by a READ that is not inside ESTIMATE_COST, plus `LAST_RUN`.
//! - A typed prompt (`INTO x AS T`) may send one repair request: `[1, 2]`
//!   `API_CALLS` and twice the token maximum ([`add_repair`]).
//! - Paths merge by [`CostBound::either`]; a TRY's handler is entered with
//!   [`handler_entry`].

use crate::cost::Dim;
use crate::cost::bound::CostBound;
use crate::isa::{CostClass, Instr};

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
/// No tokenizer packs more than this many bytes of text into one token
/// (tokenizers' longest merges are far shorter for ordinary text): the
/// minimum of a prompt counts its certain text at this rate.
pub const MIN_BYTES_PER_TOKEN: u64 = 8;

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

/// What a typed PROMPT_AGENT (book: reference/types.md) may add for its one repair
/// request: up to one more `API_CALLS` and up to the prompt's token maximum
/// again (`max_tokens`), none of it certain — `[1, 2]` calls in all, and
/// twice the untyped token bound.
pub fn add_repair(acc: &mut CostBound, max_tokens: u64) {
    acc.add_range(Dim::ApiCalls, 0, 1);
    acc.add_range(Dim::TokenCount, 0, max_tokens);
}

/// The default `[min, max]` execution time of a RUN, in milliseconds: up to
/// its TIMEOUT, or up to [`DEFAULT_RUN_MAX_MS`].
pub fn default_run_time(timeout_ms: Option<u64>) -> (u64, u64) {
    (0, timeout_ms.unwrap_or(DEFAULT_RUN_MAX_MS))
}

/// A prompt's `[min, max]` tokens. Max: the estimated prompt (the query's
/// characters / 4, rounded up, plus the template overhead, plus
/// [`DEFAULT_CONTEXT_TOKENS`] per context variable) and
/// [`DEFAULT_MAX_TOKENS`] of completion. Min: the query's literal bytes
/// (without its `${...}` interpolations) / [`MIN_BYTES_PER_TOKEN`].
pub fn prompt_tokens(query: &str, context_vars: usize) -> (u64, u64) {
    prompt_tokens_answered(query, context_vars, DEFAULT_MAX_TOKENS)
}

/// [`prompt_tokens`] with `completion` tokens allowed for the answer (the
/// provider's `max_tokens`) instead of [`DEFAULT_MAX_TOKENS`].
pub fn prompt_tokens_answered(query: &str, context_vars: usize, completion: u64) -> (u64, u64) {
    let chars = query.chars().count() as u64;
    let prompt = chars
        .div_ceil(CHARS_PER_TOKEN)
        .saturating_add(PROMPT_OVERHEAD_TOKENS)
        .saturating_add((context_vars as u64).saturating_mul(DEFAULT_CONTEXT_TOKENS));
    (literal_bytes(query) / MIN_BYTES_PER_TOKEN, prompt.saturating_add(completion))
}

/// A prompt whose full text is known (at run time: query and context, of
/// `bytes` bytes and `chars` characters), answered in at most `completion`
/// tokens (the provider's `max_tokens`): at least `bytes / 8` tokens, at
/// most `ceil(chars / 4) + 16` of prompt and `completion`. The static rule
/// above is this with each context variable's size unknown and the default
/// completion.
pub fn prompt_tokens_for_text(bytes: u64, chars: u64, completion: u64) -> (u64, u64) {
    let prompt = chars.div_ceil(CHARS_PER_TOKEN).saturating_add(PROMPT_OVERHEAD_TOKENS);
    (bytes / MIN_BYTES_PER_TOKEN, prompt.saturating_add(completion))
}

/// The bytes of `query` outside its `${...}` interpolations.
fn literal_bytes(query: &str) -> u64 {
    let mut bytes = 0;
    let mut rest = query;
    while let Some(start) = rest.find("${") {
        bytes += start;
        match rest[start..].find('}') {
            Some(end) => rest = &rest[start + end + 1..],
            None => return bytes as u64,
        }
    }
    (bytes + rest.len()) as u64
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
    use crate::cost::PerDim;

    #[test]
    fn prompt_token_maxima_round_up_and_count_context() {
        assert_eq!(prompt_tokens("", 0).1, 16 + 1024);
        assert_eq!(prompt_tokens_answered("abcde", 1, 50), (0, 2 + 16 + 1000 + 50));
        assert_eq!(prompt_tokens("abcde", 0).1, 2 + 16 + 1024);
        assert_eq!(prompt_tokens("abcd", 2).1, 1 + 16 + 2000 + 1024);
        // Characters, not bytes.
        assert_eq!(prompt_tokens("ééééé", 0).1, prompt_tokens("abcde", 0).1);
    }

    #[test]
    fn prompt_token_minima_count_only_certain_text() {
        // A token per 8 bytes of literal text, rounded down; nothing for
        // context variables, the template or interpolations.
        assert_eq!(prompt_tokens("", 0).0, 0);
        assert_eq!(prompt_tokens("1234567", 5).0, 0);
        assert_eq!(prompt_tokens(&"x".repeat(17), 3).0, 2);
        assert_eq!(prompt_tokens("éééé", 0).0, 1);
        assert_eq!(prompt_tokens("12345678${VERY_LONG_VARIABLE_NAME}", 0).0, 1);
        assert_eq!(prompt_tokens("${A}12345678${B}", 0).0, 1);
        assert_eq!(prompt_tokens("12345678${unclosed", 0).0, 1);
        assert_eq!(prompt_tokens_for_text(80, 20, DEFAULT_MAX_TOKENS), (10, 5 + 16 + 1024));
        assert_eq!(prompt_tokens_for_text(80, 20, 50), (10, 5 + 16 + 50));
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
        let entry = CostBound { min: PerDim::new([1; 5]), max: PerDim::new([2; 5]) };
        let completed = CostBound { min: PerDim::new([3; 5]), max: PerDim::new([9; 5]) };
        assert_eq!(
            handler_entry(&entry, &completed),
            CostBound { min: PerDim::new([1; 5]), max: PerDim::new([9; 5]) }
        );
    }
}
