//! W0007: a step or task name used twice. Step names need not be unique
//! (book: reference/structure.md), but reports, JUnit test cases and the debugger's
//! `break "STEP"` name steps by them, so two steps of one name cannot be
//! told apart there; a STEP named like a DEFINE_TASK reads as the task.
//! (Two DEFINE_TASKs of one name are an error, E0212.) The suggestion
//! numbers the later name.

use rustc_hash::FxHashMap;

use crate::check::quote;
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Item, StmtKind, StrLit};
use crate::syntax::span::Span;

use super::Lint;

pub(super) fn check(cx: &mut Lint<'_>) {
    let plan = cx.plan;
    let mut steps: Vec<&StrLit> = Vec::new();
    let mut tasks: FxHashMap<&str, Span> = FxHashMap::default();
    for item in &plan.items {
        match item {
            Item::Step(step) => steps.push(&step.name),
            Item::DefineTask { name, .. } => {
                if let Some(text) = name.as_literal() {
                    tasks.entry(text).or_insert(name.span);
                }
            }
            _ => {}
        }
    }
    for &(stmt, _) in &cx.statements {
        if let StmtKind::Step { name, .. } = &stmt.kind {
            steps.push(name);
        }
    }
    steps.sort_by_key(|s| s.span.start);
    let mut first_step: FxHashMap<&str, Span> = FxHashMap::default();
    let mut count: FxHashMap<&str, usize> = FxHashMap::default();
    for name in steps {
        let Some(text) = name.as_literal() else { continue };
        let earlier = first_step
            .get(text)
            .copied()
            .map(|s| (s, "step"))
            .or_else(|| tasks.get(text).map(|&s| (s, "DEFINE_TASK")));
        first_step.entry(text).or_insert(name.span);
        let Some((earlier, kind)) = earlier else { continue };
        let n = count.entry(text).or_insert(1);
        *n += 1;
        let renamed = quote(&format!("{text} ({n})"));
        cx.warn(
            Diagnostic::warning(
                codes::DUPLICATE_NAME,
                name.span,
                format!("the name {} is already used by a {kind} (line {})", quote(text), cx.line(earlier)),
            )
            .with_label(earlier, "first used here")
            .with_note("reports, JUnit and the debugger's `break \"STEP\"` name steps by their names")
            .with_suggestion("give this step a name of its own", name.span, renamed),
        );
    }
}
