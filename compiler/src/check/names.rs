//! Names that must resolve: variables (E0200) and the tasks CALL runs (E0201),
//! each with the nearest existing name as the suggested replacement.

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{IdentView, StrLit};
use tiss_support::suggest;

use super::Ctx;
use super::literals::quote;
use super::symbols::Symbols;

/// The id of a variable, or E0200 when no statement in the plan binds it.
pub(crate) fn variable(cx: &mut Ctx<'_>, syms: &Symbols<'_>, ident: IdentView<'_>) -> Option<u32> {
    if let Some(id) = syms.var(ident.name) {
        return Some(id);
    }
    let mut d = Diagnostic::error(
        codes::UNDEFINED_VARIABLE,
        ident.span,
        format!("undefined variable `{}`: nothing in the plan binds it", ident.name),
    );
    // Variables first, in the order they are first bound; then the two
    // built-in records, for `LASTRUN.STDOUT` and the like.
    let candidates = syms.vars.iter().map(|v| v.name).chain(["LAST_RUN", "COST"]);
    match suggest::closest(ident.name, candidates) {
        Some(best) => d = d.with_suggestion("a variable with a similar name exists", ident.span, best),
        None => {
            d = d.with_note(
                "bind it first with `VAR`, `READ ... AS`, `PROMPT_AGENT ... INTO`, \
                 `REQUEST_REVIEW ... INTO`, `CATCH AS` or `ESTIMATE_COST INTO`",
            )
        }
    }
    cx.emit(d);
    None
}

/// The task a CALL runs, or E0201.
pub(crate) fn task(cx: &mut Ctx<'_>, syms: &Symbols<'_>, name: &StrLit) -> Option<u32> {
    let Some(text) = name.as_literal() else {
        cx.emit(
            Diagnostic::error(
                codes::UNDEFINED_TASK,
                name.span,
                "the task name in `CALL` must be a plain string, without `${...}`",
            )
            .with_note("which task runs must be known before the plan runs"),
        );
        return None;
    };
    if let Some(&id) = syms.task_ids.get(text) {
        return Some(id);
    }
    let mut d = Diagnostic::error(
        codes::UNDEFINED_TASK,
        name.span,
        format!("`CALL` of undefined task {}", quote(text)),
    );
    let candidates = syms.tasks.iter().filter(|t| t.is_first).filter_map(|t| t.name);
    match suggest::closest(text, candidates) {
        Some(best) => d = d.with_suggestion("a task with a similar name is defined", name.span, quote(best)),
        None => {
            d = d.with_note(format!("define it at the top level: `DEFINE_TASK {} {{ ... }}`", quote(text)))
        }
    }
    cx.emit(d);
    None
}
