//! W0005: a PROMPT_AGENT in a plan with no `TOKEN_COUNT` or `API_CALLS`
//! budget. A model's answers cost money and time, and nothing would stop a
//! plan that asks more than expected. One warning for the prompts that
//! run (a prompt inside `ESTIMATE_COST` is only costed), at the
//! TASK line; the suggestion caps `API_CALLS` at what the plan can ask: every prompt on
//! every path, a CALLed task's once per CALL, three requests each (the
//! first and the default two retries), and a typed one twice (its repair
//! request, book: reference/types.md).

use rustc_hash::FxHashMap;

use tisslang::cost::Dim;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Block, Item, Plan, StmtKind};

use super::Lint;
use crate::syntax::visit;

/// Requests one prompt may send: the first and `--max-retries`' default 2.
const REQUESTS_PER_PROMPT: u64 = 3;

pub(super) fn check(cx: &mut Lint<'_>) {
    let plan = cx.plan;
    let mut has_budget = plan.items.iter().any(|i| matches!(i, Item::SetBudget(b) if caps_models(b.dim)));
    let mut prompts = Vec::new();
    for &(stmt, in_estimate) in &cx.statements {
        match &stmt.kind {
            StmtKind::SetBudget(b) => has_budget |= caps_models(b.dim),
            StmtKind::PromptAgent { .. } if !in_estimate => prompts.push(stmt.span),
            _ => {}
        }
    }
    let Some(&first) = prompts.first() else { return };
    if has_budget {
        return;
    }
    let Some(task) = plan.items.iter().find_map(|i| match i {
        Item::Task { span, .. } => Some(*span),
        _ => None,
    }) else {
        return;
    };
    // At the TASK line, where the suggested budget goes (a suggestion
    // replaces what its warning points at); each prompt is labelled.
    let mut warning = Diagnostic::warning(
        codes::PROMPT_WITHOUT_BUDGET,
        task,
        format!(
            "this plan asks a language model (line {}), but no budget caps TOKEN_COUNT or API_CALLS",
            cx.line(first)
        ),
    )
    .with_note("without a cap, nothing stops a plan that asks more (or longer) than expected");
    for &prompt in &prompts {
        warning = warning.with_label(prompt, "asks the model");
    }
    let requests = most_prompts(plan).saturating_mul(REQUESTS_PER_PROMPT);
    warning = warning.with_suggestion(
        format!("cap the model requests ({requests}: each prompt, three tries)"),
        task,
        format!("{}\n\nSET_BUDGET API_CALLS = {requests}", cx.text(task)),
    );
    cx.warn(warning);
}

fn caps_models(dim: Dim) -> bool {
    matches!(dim, Dim::TokenCount | Dim::ApiCalls)
}

/// The most prompts a run can send (a typed one and its repair count two):
/// every PROMPT_AGENT of SETUP and the
/// steps, a CALLed task's as many times as it is called (calls form no
/// cycle: the checker refuses one).
fn most_prompts(plan: &Plan) -> u64 {
    let tasks = visit::task_bodies(plan);
    let mut memo: FxHashMap<&str, u64> = FxHashMap::default();
    let mut total = 0u64;
    for item in &plan.items {
        if let Item::Setup { body, .. } | Item::Step(crate::syntax::ast::Step { body, .. }) = item {
            total = total.saturating_add(in_block(body, &tasks, &mut memo, 0));
        }
    }
    total.max(1)
}

fn in_block<'a>(
    block: &'a Block,
    tasks: &FxHashMap<&'a str, &'a Block>,
    memo: &mut FxHashMap<&'a str, u64>,
    depth: usize,
) -> u64 {
    let mut count = 0u64;
    for stmt in &block.commands {
        count = count.saturating_add(match &stmt.kind {
            // A typed answer may need its one repair request.
            StmtKind::PromptAgent { into: Some(into), .. } if into.ty.is_some() => 2,
            StmtKind::PromptAgent { .. } => 1,
            StmtKind::EstimateCost { .. } => 0,
            StmtKind::Call { task } => match task.as_literal().and_then(|n| tasks.get(n).map(|b| (n, *b))) {
                Some((name, body)) if depth < tasks.len() => match memo.get(name) {
                    Some(&n) => n,
                    None => {
                        let n = in_block(body, tasks, memo, depth + 1);
                        memo.insert(name, n);
                        n
                    }
                },
                _ => 0,
            },
            _ => visit::blocks_of(stmt)
                .into_iter()
                .map(|(b, _)| in_block(b, tasks, memo, depth))
                .fold(0u64, u64::saturating_add),
        });
    }
    count
}
