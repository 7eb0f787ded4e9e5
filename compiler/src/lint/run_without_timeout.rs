//! W0003: a RUN without `TIMEOUT`. A command that hangs holds the whole
//! plan until `EXECUTION_TIME` (if any budget caps it) runs out, and the
//! static cost bound of the RUN is only the cost model's guess. RUNs in an
//! `ESTIMATE_COST` block never run, and are not warned about.

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::StmtKind;
use crate::syntax::span::Span;

use super::Lint;

/// What the suggestion puts in: a bound that stops a hang, generous enough
/// not to cut a slow build short. The explanation says to choose one.
const SUGGESTED: &str = "10m";

pub(super) fn check(cx: &mut Lint<'_>) {
    let mut found = Vec::new();
    for &(stmt, in_estimate) in &cx.statements {
        if let StmtKind::Run { command, dir, timeout: None } = &stmt.kind
            && !in_estimate
        {
            let last = dir.as_ref().map_or(command.span, |d| d.span);
            found.push((stmt.span, last));
        }
    }
    for (stmt, last) in found {
        let end = Span { start: last.end, end: last.end };
        let replacement = cx.rewrite(stmt, end, &format!(" TIMEOUT {SUGGESTED}"));
        cx.warn(
            Diagnostic::warning(
                codes::RUN_WITHOUT_TIMEOUT,
                stmt,
                "this RUN has no TIMEOUT: a command that hangs holds the plan",
            )
            .with_suggestion(
                format!("bound how long it may take (choose what fits the command; {SUGGESTED} is a start)"),
                stmt,
                replacement,
            ),
        );
    }
}
